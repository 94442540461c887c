//! MySQL's types of a query's results, read from the statement's syntax tree (sqlparser's MySQL
//! dialect): what the text rewrite (`statement`) cannot see.
//!
//! SQLite has no DECIMAL: `7/2` is the double 3.5 there, where MySQL's answer is the DECIMAL
//! 3.5000, shown with its scale wherever it becomes text: in the result a client reads
//! (mysqli, PDO and the `mariadb` client get the text `3.5000`), and in `CONCAT(7/2, '')`. The
//! scale follows MySQL's rules from the operands: a literal's digits after the point, an integer
//! 0, `+`/`-` the larger, `*` the sum, `/` the dividend's plus 4 (`div_precision_increment`),
//! `AVG` its argument's plus 4, `SUM` its argument's, `ROUND(x, d)` and `TRUNCATE(x, d)` `d`,
//! `CAST(x AS DECIMAL(m, d))` `d`, `IF`/`IFNULL`/`COALESCE`/`CASE` the largest of their results.
//! A double anywhere makes the result a double (shown with the digits it has, as today).
//!
//! Only what is known is typed: a column has a type where every table the SELECT reads is a
//! raw table (its declared types), a derived table or a common table expression (typed in
//! turn); anything else (a report table's column, a function not listed here) is
//! [`Ty::Other`], and its value is sent as SQLite computes it. A statement sqlparser cannot
//! parse is typed not at all. Values are doubles until they are written: a quotient of a
//! quotient (`100 / 7 / 3`, 8 decimals) is computed with a double's digits and rounded to its
//! scale once, as MySQL, which keeps more digits inside than it shows, does.

use sqlparser::ast::{
    BinaryOperator, CeilFloorKind, DataType, DateTimeField, ExactNumberInfo, Expr, FunctionArg,
    FunctionArgExpr, FunctionArguments, Ident, InTarget, ObjectNamePart, Query, Select, SelectItem,
    SetExpr, TableFactor, UnaryOperator, Value,
};
use sqlparser::tokenizer::Location;

use super::coldef::Meta;
use super::layout::SqlType;
use super::variables::TableColumns;
use super::vtab::Raw;

/// An expression's MySQL type, as far as its value's text depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// The NULL literal: takes the other branch's type in `IFNULL`, `CASE`, ….
    Null,
    Int,
    /// A BIGINT UNSIGNED, held in SQLite as the `i64` of its 64 bits (`~0` is -1 there): what
    /// reads those bits knows it by this type ([`unsigned_reads`]); anything else reads the
    /// value through `mysql_unsigned_value`.
    UInt,
    /// A DECIMAL with this many digits after the point.
    Dec(u8),
    Double,
    Text,
    /// A binary string (`BINARY x`, `CAST(x AS BINARY)`): compared byte by byte.
    Binary,
    Date,
    DateTime,
    Time,
    /// Not followed here: sent as SQLite computes it.
    Other,
}

/// Most digits after the point a DECIMAL typed here has (MySQL's limit).
const MAX_SCALE: u32 = 30;

/// What changes an expression's type beyond the tree, for the statement being typed on this
/// thread ([`with_rules`]): the session's settings, and how literals were written.
#[derive(Clone, Debug)]
pub struct Rules {
    /// What MySQL adds to a quotient's scale: `div_precision_increment` (4 unless set).
    pub div_increment: u32,
    /// `sql_mode`'s `PIPES_AS_CONCAT`: `||` is `CONCAT`, not `OR`.
    pub pipes_as_concat: bool,
    /// Where the hexadecimal literals written `x'41'` start: binary strings in MySQL, where
    /// `0x41` (the same in sqlparser's tree) is a number in an expression.
    pub hex_strings: Vec<Location>,
    /// `group_concat_max_len`: a `GROUP_CONCAT` of up to 512 characters is a VARCHAR.
    pub group_concat_max_len: u64,
    /// A strict `sql_mode` (`STRICT_TRANS_TABLES`, `STRICT_ALL_TABLES`): a string function's
    /// result may be NULL, whatever its arguments.
    pub strict: bool,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            div_increment: 4,
            pipes_as_concat: false,
            hex_strings: Vec::new(),
            group_concat_max_len: 1 << 20,
            strict: true,
        }
    }
}

thread_local! {
    static RULES: std::cell::RefCell<Rules> = std::cell::RefCell::new(Rules::default());
}

thread_local! {
    /// The session's user variables' types, for the statement being typed on this thread
    /// ([`with_user_types`]).
    static USER_TYPES: std::cell::RefCell<std::collections::BTreeMap<String, Ty>> =
        const { std::cell::RefCell::new(std::collections::BTreeMap::new()) };
}

/// `f` run with `@name` typed as `types` says (by lower-cased name); a variable not there was
/// never set, and is NULL.
pub fn with_user_types<T>(
    types: &std::collections::BTreeMap<String, Ty>,
    f: impl FnOnce() -> T,
) -> T {
    let before = USER_TYPES.with(|u| u.replace(types.clone()));
    let out = f();
    USER_TYPES.with(|u| *u.borrow_mut() = before);
    out
}

/// A user variable's type (`@a`, named without its `@`): its value's, as the statement starts;
/// a binary string where it holds NULL or was never set, as in MySQL.
pub(super) fn user_type(name: &str) -> Ty {
    USER_TYPES
        .with(|u| u.borrow().get(&name.to_lowercase()).copied())
        .unwrap_or(Ty::Binary)
}

thread_local! {
    /// The characters of the session's string system variables' values, for the statement
    /// being typed on this thread ([`with_system_texts`]).
    static SYSTEM_TEXTS: std::cell::RefCell<std::collections::BTreeMap<&'static str, u32>> =
        const { std::cell::RefCell::new(std::collections::BTreeMap::new()) };
}

/// `f` run with each string system variable `@@x` as long as `texts` says (characters, by
/// name; a NULL one 0); one not there is declared by its type alone.
pub fn with_system_texts<T>(
    texts: &std::collections::BTreeMap<&'static str, u32>,
    f: impl FnOnce() -> T,
) -> T {
    let before = SYSTEM_TEXTS.with(|u| u.replace(texts.clone()));
    let out = f();
    SYSTEM_TEXTS.with(|u| *u.borrow_mut() = before);
    out
}

/// The characters of string system variable `name`'s value as the statement starts, where
/// the session gave them.
pub(super) fn system_text_chars(name: &str) -> Option<u32> {
    SYSTEM_TEXTS.with(|u| u.borrow().get(name).copied())
}

/// The system variable `e` reads (`@@x`, `@@session.x`, `@@global.x`), where pinbad knows it
/// in the scope named.
pub(super) fn system_variable(e: &Expr) -> Option<super::variables::System> {
    super::variables::read_system(variable_name(e)?.strip_prefix("@@")?).ok()
}

/// An unquoted name as written, its parts joined by dots: `@a`, `@@x`, `@@session.x`.
pub(super) fn variable_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Identifier(i) if i.quote_style.is_none() => Some(i.value.clone()),
        Expr::CompoundIdentifier(parts) if parts[0].quote_style.is_none() => Some(
            parts
                .iter()
                .map(|p| p.value.as_str())
                .collect::<Vec<_>>()
                .join("."),
        ),
        _ => None,
    }
}

/// A system variable's type: MariaDB's for the variable ([`super::variables::Kind`]), whatever
/// its value.
fn system_type(v: super::variables::System) -> Ty {
    use super::variables::Kind;
    match v.kind {
        Kind::Boolean | Kind::Signed => Ty::Int,
        Kind::Unsigned => Ty::UInt,
        Kind::Double => Ty::Double,
        Kind::Text => Ty::Text,
    }
}

/// Whether an identifier is a user variable (`@a`, not `@@a` or a quoted name).
pub(super) fn is_user_variable(i: &sqlparser::ast::Ident) -> bool {
    i.quote_style.is_none() && i.value.starts_with('@') && !i.value.starts_with("@@")
}

/// `f` run with the session's `rules` (quotients' scales, what `||` is).
pub fn with_rules<T>(rules: Rules, f: impl FnOnce() -> T) -> T {
    let before = RULES.with(|r| r.replace(rules));
    let out = f();
    RULES.with(|r| *r.borrow_mut() = before);
    out
}

thread_local! {
    /// The report tables' columns for the statement being typed on this thread
    /// ([`with_tables`]).
    static TABLES: std::cell::RefCell<TableColumns> = std::cell::RefCell::new(TableColumns::default());
}

/// `f` run with report tables' columns typed as `tables` says.
pub fn with_tables<T>(tables: &TableColumns, f: impl FnOnce() -> T) -> T {
    let before = TABLES.with(|t| t.replace(tables.clone()));
    let out = f();
    TABLES.with(|t| *t.borrow_mut() = before);
    out
}

/// A report table's columns, typed as its layout declares them.
fn report_columns(name: &str) -> Option<Columns> {
    let columns = TABLES.with(|t| t.borrow().of(name))?;
    Some(
        columns
            .into_iter()
            .map(|(name, ty)| {
                (
                    Some(name.to_ascii_lowercase()),
                    sql_type(ty),
                    Meta::column(ty.mysql()),
                )
            })
            .collect(),
    )
}

pub(super) fn strict_mode() -> bool {
    RULES.with(|r| r.borrow().strict)
}

pub(super) fn div_increment() -> u32 {
    RULES.with(|r| r.borrow().div_increment)
}

fn pipes_as_concat() -> bool {
    RULES.with(|r| r.borrow().pipes_as_concat)
}

pub(super) fn group_concat_max_len() -> u64 {
    RULES.with(|r| r.borrow().group_concat_max_len)
}

/// Whether a hexadecimal literal starting `at` was written `x'…'`.
pub(super) fn hex_string_at(at: Location) -> bool {
    RULES.with(|r| r.borrow().hex_strings.contains(&at))
}

/// The functions whose result is a string where the tables below do not say it.
const TEXT_RESULTS: &[&str] = &[
    "CONCAT",
    "CONCAT_WS",
    "UPPER",
    "LOWER",
    "UCASE",
    "LCASE",
    "REVERSE",
    "LPAD",
    "RPAD",
    "LEFT",
    "RIGHT",
];

/// Which arguments of a function MySQL reads as strings ([`string_operands`]).
#[derive(Clone, Copy)]
enum Places {
    All,
    At(&'static [usize]),
    From(usize),
}

/// The functions that read arguments as strings (MySQL's `val_str`), and which.
#[rustfmt::skip]
const STRING_ARGUMENTS: &[(&str, Places)] = &[
    ("CONCAT", Places::All), ("CONCAT_WS", Places::All), ("GROUP_CONCAT", Places::All),
    ("REPLACE", Places::All), ("ELT", Places::From(1)),
    ("LENGTH", Places::At(&[0])), ("OCTET_LENGTH", Places::At(&[0])),
    ("CHAR_LENGTH", Places::At(&[0])), ("CHARACTER_LENGTH", Places::At(&[0])),
    ("BIT_LENGTH", Places::At(&[0])), ("UPPER", Places::At(&[0])), ("LOWER", Places::At(&[0])),
    ("UCASE", Places::At(&[0])), ("LCASE", Places::At(&[0])), ("REVERSE", Places::At(&[0])),
    ("LEFT", Places::At(&[0])), ("RIGHT", Places::At(&[0])), ("LPAD", Places::At(&[0, 2])),
    ("RPAD", Places::At(&[0, 2])), ("TRIM", Places::At(&[0])), ("LTRIM", Places::At(&[0])),
    ("RTRIM", Places::At(&[0])), ("QUOTE", Places::At(&[0])), ("REPEAT", Places::At(&[0])),
    ("INSERT", Places::At(&[0, 3])), ("LOCATE", Places::At(&[0, 1])),
    ("INSTR", Places::At(&[0, 1])), ("POSITION", Places::At(&[0, 1])),
    ("SUBSTRING", Places::At(&[0])), ("SUBSTR", Places::At(&[0])), ("MID", Places::At(&[0])),
    ("SUBSTRING_INDEX", Places::At(&[0, 1])), ("FIND_IN_SET", Places::At(&[0, 1])),
    ("STRCMP", Places::At(&[0, 1])), ("ASCII", Places::At(&[0])), ("ORD", Places::At(&[0])),
    ("MD5", Places::At(&[0])), ("SHA1", Places::At(&[0])), ("SHA", Places::At(&[0])),
    ("SHA2", Places::At(&[0])), ("CRC32", Places::At(&[0])), ("SOUNDEX", Places::At(&[0])),
    ("TO_BASE64", Places::At(&[0])), ("FROM_BASE64", Places::At(&[0])),
    ("UNHEX", Places::At(&[0])), ("INET_ATON", Places::At(&[0])),
    ("REGEXP_REPLACE", Places::At(&[0, 1, 2])), ("REGEXP_SUBSTR", Places::At(&[0, 1])),
    ("REGEXP_INSTR", Places::At(&[0, 1])), ("REGEXP_LIKE", Places::At(&[0, 1])),
    ("MAKE_SET", Places::From(1)), ("EXPORT_SET", Places::At(&[1, 2, 3])),
];

/// Where MySQL reads a string from a value, `e`'s operands it reads so: their places among the
/// expressions met in `e` in the order sqlparser's visitor meets them (a call's arguments
/// first; `TRIM(what FROM x)` its `what`, then `x`), `e` being of type `ty`. A number read there
/// is written as MySQL writes it ([`as_text`]), not as SQLite does (`RTRIM(1e0)` is `1`, not
/// `1.0`; `CONCAT(7/2)` `3.5000`; `LIKE` of `ROUND(x, 2)` sees `1.50`): the string functions'
/// string arguments, both sides of `LIKE` and `REGEXP`, what is cast to a string, and the
/// results of `IF`, `IFNULL`, `COALESCE` and `CASE` where theirs is a string. (A number never
/// compares as a string: beside one it compares as a number, [`comparison`].)
pub(super) fn string_operands(e: &Expr, ty: Ty) -> Vec<usize> {
    let met = match e {
        Expr::Trim { trim_what, .. } => 1 + usize::from(trim_what.is_some()),
        Expr::Substring { .. } => 1,
        Expr::Position { .. } | Expr::Like { .. } | Expr::RLike { .. } => 2,
        Expr::Cast { data_type, .. }
        | Expr::Convert {
            data_type: Some(data_type),
            ..
        } => usize::from(matches!(cast_type(data_type), Ty::Text | Ty::Binary)),
        Expr::Convert {
            data_type: None,
            charset: Some(_),
            ..
        }
        | Expr::Collate { .. } => 1,
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } if ty == Ty::Text => {
            return case_results(operand.is_some(), conditions.len(), else_result.is_some())
                .collect()
        }
        Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_uppercase();
            let n = children(e).len();
            let places = match name.as_str() {
                "IF" if ty == Ty::Text => Places::From(1),
                "IFNULL" | "COALESCE" if ty == Ty::Text => Places::All,
                _ => match STRING_ARGUMENTS.iter().find(|(f, _)| *f == name) {
                    Some((_, p)) => *p,
                    None => return Vec::new(),
                },
            };
            return match places {
                Places::All => (0..n).collect(),
                Places::From(k) => (k..n).collect(),
                Places::At(at) => at.iter().copied().filter(|k| *k < n).collect(),
            };
        }
        _ => 0,
    };
    (0..met).collect()
}

/// Whether `e` merges its results into one (`IF`, `IFNULL`, `COALESCE`, `CASE`) or makes its
/// operand a string (`x COLLATE c`): where that is a string, an integer among them is made one
/// too (SQLite would keep it a number, and sort or compare it as one).
pub(super) fn merges_results(e: &Expr) -> bool {
    match e {
        Expr::Case { .. } | Expr::Collate { .. } => true,
        Expr::Function(f) => matches!(
            f.name.to_string().to_ascii_uppercase().as_str(),
            "IF" | "IFNULL" | "COALESCE"
        ),
        _ => false,
    }
}

/// A result column's type as it is declared to the client, where it is not what SQLite's
/// value tells (a DECIMAL's scale; a temporal, which SQLite holds as text): a client reads a
/// DATETIME column as a date and time (PyMySQL's `datetime`, Grafana's time column), a
/// VAR_STRING as a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Declared {
    /// A DECIMAL with this many digits after the point, written with them (`3.5000`).
    Decimal(u8),
    /// A DOUBLE or FLOAT whose decimals are fixed (fewer than 31: `ROUND(x, 2)`, `PI()`,
    /// `STDDEV`), written in the text protocol with that many digits after the point
    /// (`1.50`, `3.141593`), as MySQL writes it; one of 31 has the shortest digits instead.
    Double(u8),
    /// A FLOAT of 31 decimals (a FLOAT column, `MAX` of one, `CAST(… AS FLOAT)`), written
    /// in the text protocol with its six significant digits (`1.424`), as MariaDB writes
    /// one, and so read as a string (`functions::float_text`).
    Float,
    Date,
    DateTime,
    Time,
}

impl Meta {
    /// What the column's values are sent as, where SQLite's value does not tell it
    /// ([`Declared`]).
    pub fn declared(&self) -> Option<Declared> {
        use super::coldef::Code;
        match self.code {
            Code::NewDecimal => Some(Declared::Decimal(self.decimals)),
            Code::Double | Code::Float if self.decimals < 31 => {
                Some(Declared::Double(self.decimals))
            }
            Code::Float => Some(Declared::Float),
            Code::Date => Some(Declared::Date),
            Code::DateTime => Some(Declared::DateTime),
            Code::Time => Some(Declared::Time),
            _ => None,
        }
    }
}

/// A query's typing.
#[derive(Debug, Default, PartialEq)]
pub struct Typing {
    /// Each result column's definition where the typing tells it ([`Meta`]; `None` where its
    /// type is not followed); empty where the columns could not be told (a `*` over a table
    /// not known, or over a `USING` join; a statement not parsed).
    pub columns: Vec<Option<Meta>>,
}

/// The typing of `query`.
pub fn of(query: &Query) -> Typing {
    let columns = query_columns(query, &Vec::new(), &mut Found::default()).unwrap_or_default();
    Typing {
        columns: columns
            .into_iter()
            .map(|(_, t, meta)| {
                (t != Ty::Other && meta.code != super::coldef::Code::ByValue).then_some(meta)
            })
            .collect(),
    }
}

/// Whether `op` compares its operands (`=`, `<>`, `<`, `<=`, `>`, `>=`, `<=>`).
pub(super) fn is_comparison(op: &BinaryOperator) -> bool {
    use BinaryOperator as B;
    matches!(
        op,
        B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq | B::Spaceship
    )
}

/// Whether `e` is a predicate (`IS NULL`, `IN`, `BETWEEN`, `LIKE`, `EXISTS`, …): true or false.
pub(super) fn is_predicate(e: &Expr) -> bool {
    matches!(
        e,
        Expr::IsNull(_)
            | Expr::IsNotNull(_)
            | Expr::IsTrue(_)
            | Expr::IsNotTrue(_)
            | Expr::IsFalse(_)
            | Expr::IsNotFalse(_)
            | Expr::IsUnknown(_)
            | Expr::IsNotUnknown(_)
            | Expr::In { .. }
            | Expr::Between { .. }
            | Expr::Like { .. }
            | Expr::RLike { .. }
            | Expr::Exists { .. }
    )
}

/// Whether MariaDB groups a select's rows in a temporary table: where it groups by a column
/// (by constants alone, `GROUP BY 1` of a literal, it groups nothing), unless it groups by
/// sorting.
pub(super) fn groups_in_a_temporary_table(select: &sqlparser::ast::Select) -> bool {
    groups_by_a_column(select) && !groups_by_sorting(select)
}

/// Whether a select groups by something that is not a constant: a column, or a function whose
/// value changes from row to row (`GROUP BY UUID()`).
fn groups_by_a_column(select: &sqlparser::ast::Select) -> bool {
    match &select.group_by {
        sqlparser::ast::GroupByExpr::Expressions(es, _) => es.iter().any(|g| {
            // `GROUP BY n` groups by the nth item.
            let position = match g {
                Expr::Value(v) => match &v.value {
                    Value::Number(n, _) => n.parse::<usize>().ok(),
                    _ => None,
                },
                _ => None,
            };
            match position.and_then(|k| select.projection.get(k.checked_sub(1)?)) {
                Some(SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }) => {
                    varies_per_row(e)
                }
                Some(_) => true,
                None => varies_per_row(g),
            }
        }),
        sqlparser::ast::GroupByExpr::All(_) => true,
    }
}

/// Whether an expression is no constant to MariaDB: it reads a column, or calls a function
/// whose value changes from row to row (`RAND`, `UUID`: MariaDB's `RAND_TABLE_BIT`).
fn varies_per_row(e: &Expr) -> bool {
    super::coldef::reads_a_column(e)
        || sqlparser::ast::visit_expressions(e, |x| match x {
            Expr::Function(f)
                if ["RAND", "UUID", "UUID_SHORT", "SYSDATE"]
                    .iter()
                    .any(|n| f.name.to_string().eq_ignore_ascii_case(n)) =>
            {
                std::ops::ControlFlow::Break(())
            }
            _ => std::ops::ControlFlow::Continue(()),
        })
        .is_break()
}

/// Whether MariaDB finds a select's groups or its `DISTINCT` rows by their values in a
/// temporary table ([`groups_in_a_temporary_table`]; a `DISTINCT` of more than one row).
pub(super) fn keys_in_a_temporary_table(select: &sqlparser::ast::Select) -> bool {
    // (A DISTINCT of aggregates alone is one row: no table.)
    let one_row = !is_grouped(select)
        && select.projection.iter().any(|i| {
            matches!(i, SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }
                if holds_an_aggregate(e))
        });
    groups_in_a_temporary_table(select) || (select.distinct.is_some() && !one_row)
}

/// Whether a select has a GROUP BY.
fn is_grouped(select: &sqlparser::ast::Select) -> bool {
    !matches!(&select.group_by, sqlparser::ast::GroupByExpr::Expressions(e, _) if e.is_empty())
}

/// Whether `e` is a standard deviation or a variance (`STD`, `VARIANCE`, …).
fn is_deviation(e: &Expr) -> bool {
    matches!(
        aggregate_name(e),
        Some("STD" | "STDDEV" | "STDDEV_POP" | "STDDEV_SAMP" | "VARIANCE" | "VAR_POP" | "VAR_SAMP")
    )
}

/// Whether a select list item is sent from the temporary table's column that holds it (MariaDB's
/// `change_to_use_tmp_fields`): a column, an aggregate, or an expression that reads a column and
/// holds no aggregate; a constant, or an expression over aggregates, is computed again.
fn held_in_a_temporary_table(e: &Expr) -> bool {
    // A window function is computed over the table's rows, after them: never held.
    if holds_a_window_function(e) {
        return false;
    }
    match aggregate_name(e) {
        // Computed again from what the table holds (MariaDB's `result_item`s: an average's
        // sum and count, a variance's moments); `GROUP_CONCAT` keeps its own table.
        Some(
            "AVG" | "STD" | "STDDEV" | "STDDEV_POP" | "STDDEV_SAMP" | "VARIANCE" | "VAR_POP"
            | "VAR_SAMP" | "GROUP_CONCAT",
        ) => false,
        Some(_) => true,
        None => !holds_an_aggregate(e) && varies_per_row(e),
    }
}

/// Whether an expression holds an aggregate of its own select (not one of a subquery's).
fn holds_an_aggregate(e: &Expr) -> bool {
    let compared = match e {
        Expr::AnyOp { left, .. } | Expr::AllOp { left, .. } => holds_an_aggregate(left),
        _ => false,
    };
    compared || aggregate_name(e).is_some() || children(e).into_iter().any(holds_an_aggregate)
}

/// The aggregate functions, by name (SQLite's `TOTAL` among them, which the translation
/// writes).
#[rustfmt::skip]
pub(super) const AGGREGATE_NAMES: &[&str] = &[
    "COUNT", "SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT", "STD", "STDDEV", "STDDEV_POP",
    "STDDEV_SAMP", "VARIANCE", "VAR_POP", "VAR_SAMP", "BIT_OR", "BIT_AND", "BIT_XOR", "TOTAL",
];

/// An aggregate call's name (upper case), not a window's.
fn aggregate_name(e: &Expr) -> Option<&'static str> {
    let Expr::Function(f) = e else { return None };
    if f.over.is_some() {
        return None;
    }
    let name = f.name.to_string().to_ascii_uppercase();
    AGGREGATE_NAMES.iter().find(|n| **n == name).copied()
}

/// The select list item `e` names in a `GROUP BY` or `ORDER BY`: by its place (`1`) or its
/// alias; `None` where it names none.
pub(super) fn listed_item(select: &sqlparser::ast::Select, e: &Expr) -> Option<Expr> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => {
                let k = n.parse::<usize>().ok()?.checked_sub(1)?;
                match select.projection.get(k)? {
                    SelectItem::UnnamedExpr(x) | SelectItem::ExprWithAlias { expr: x, .. } => {
                        Some(x.clone())
                    }
                    _ => None,
                }
            }
            _ => None,
        },
        Expr::Identifier(i) => select.projection.iter().find_map(|k| match k {
            SelectItem::ExprWithAlias { expr, alias }
                if alias.value.eq_ignore_ascii_case(&i.value) =>
            {
                Some(expr.clone())
            }
            _ => None,
        }),
        _ => None,
    }
}

/// Whether `e`, a select list item of a select `WITH ROLLUP`, is a function with a GROUP BY
/// item among its arguments (or theirs, through functions, not aggregates): MariaDB's
/// `change_group_ref` makes it a reference to the group's value, NULL on a rollup row, and so
/// declares the function nullable (`IFNULL(script_name, 'all')`).
fn over_a_group(e: &Expr, select: &sqlparser::ast::Select) -> bool {
    let sqlparser::ast::GroupByExpr::Expressions(groups, _) = &select.group_by else {
        return false;
    };
    let groups: Vec<Expr> = groups
        .iter()
        .map(|g| listed_item(select, g).unwrap_or_else(|| g.clone()))
        .collect();
    fn refers(e: &Expr, groups: &[Expr]) -> bool {
        if aggregate_name(e).is_some() || matches!(e, Expr::Subquery(_)) {
            return false;
        }
        children(e)
            .into_iter()
            .any(|k| groups.contains(k) || refers(k, groups))
    }
    !matches!(
        e,
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Value(_)
    ) && !groups.contains(e)
        && refers(e, &groups)
}

/// Whether a select groups `WITH ROLLUP`.
fn rolls_up(select: &sqlparser::ast::Select) -> bool {
    matches!(&select.group_by, sqlparser::ast::GroupByExpr::Expressions(_, m)
        if m.contains(&sqlparser::ast::GroupByWithModifier::Rollup))
}

/// Whether MariaDB groups a select's rows without a temporary table: where an aggregate takes
/// `DISTINCT` (the rows are sorted and grouped as read), or `WHERE` is a false constant (no row
/// is read).
fn groups_by_sorting(select: &sqlparser::ast::Select) -> bool {
    aggregates_distinct(select) || never_true(select)
}

/// Whether a select's `WHERE` is a constant MariaDB finds false or NULL before it reads a row
/// ("Impossible WHERE": `WHERE ''`, `WHERE 1.5 = 0.25`, `WHERE TIME '12:00:00' IS NULL`).
fn never_true(select: &sqlparser::ast::Select) -> bool {
    select
        .selection
        .as_ref()
        .and_then(constant_number)
        .is_some_and(|v| v.is_none_or(|v| v == 0.0))
}

/// The value of a constant condition as MariaDB reads it as a number, where it is plain to see:
/// `None` where it is not a constant followed here, `Some(None)` where it is NULL. Literals
/// (a string by its leading number, a temporal by its digits), signs, `NOT`, `AND`, `OR`,
/// `IS [NOT] NULL` and comparisons of numbers.
fn constant_number(e: &Expr) -> Option<Option<f64>> {
    use BinaryOperator as B;
    let truth = |b: bool| Some(Some(if b { 1.0 } else { 0.0 }));
    match e {
        Expr::Nested(x) => constant_number(x),
        Expr::Value(v) => match &v.value {
            Value::Null => Some(None),
            Value::Boolean(b) => truth(*b),
            Value::Number(n, _) => n.parse::<f64>().ok().map(Some),
            Value::SingleQuotedString(t) | Value::DoubleQuotedString(t) => {
                Some(Some(super::functions::leading_number(t)))
            }
            _ => None,
        },
        // A temporal's number: its digits (`TIME '00:00:00'` is 0).
        Expr::TypedString(ts) => match &ts.value.value {
            Value::SingleQuotedString(t) => {
                let digits: String = t
                    .chars()
                    .filter(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                digits.parse::<f64>().ok().map(Some)
            }
            _ => None,
        },
        Expr::UnaryOp { op, expr } => {
            let v = constant_number(expr)?;
            match op {
                UnaryOperator::Minus => Some(v.map(|v| -v)),
                UnaryOperator::Plus => Some(v),
                UnaryOperator::Not => Some(v.map(|v| if v == 0.0 { 1.0 } else { 0.0 })),
                _ => None,
            }
        }
        Expr::IsNull(x) => truth(constant_number(x)?.is_none()),
        Expr::IsNotNull(x) => truth(constant_number(x)?.is_some()),
        // False beside anything (`0 AND x`), true beside anything (`1 OR x`): MariaDB folds
        // them so.
        Expr::BinaryOp {
            left,
            op: op @ (B::And | B::Or),
            right,
        } => {
            let (l, r) = (constant_number(left), constant_number(right));
            let decides = |v: Option<Option<f64>>| {
                v.flatten()
                    .is_some_and(|v| (v == 0.0) == matches!(op, B::And))
            };
            if decides(l) || decides(r) {
                return truth(*op == B::Or);
            }
            match (l?, r?) {
                (Some(_), Some(_)) => truth(*op == B::And),
                _ => Some(None),
            }
        }
        // `NULL BETWEEN …` is NULL.
        Expr::Between { expr, .. } if constant_number(expr)?.is_none() => Some(None),
        Expr::BinaryOp { left, op, right } => {
            let (l, r) = (constant_number(left)?, constant_number(right)?);
            match op {
                // Compared as numbers only where both are number literals (strings compare by
                // their collation).
                _ if !(is_comparison(op) && is_number(left) && is_number(right)) => None,
                B::Spaceship => truth(l == r),
                _ => match (l, r) {
                    (Some(a), Some(b)) => truth(match op {
                        B::Eq => a == b,
                        B::NotEq => a != b,
                        B::Lt => a < b,
                        B::LtEq => a <= b,
                        B::Gt => a > b,
                        _ => a >= b,
                    }),
                    _ => Some(None),
                },
            }
        }
        _ => None,
    }
}

/// Whether `e` is a number literal (signed), or NULL.
fn is_number(e: &Expr) -> bool {
    match e {
        Expr::Nested(x) => is_number(x),
        Expr::UnaryOp {
            op: UnaryOperator::Minus | UnaryOperator::Plus,
            expr,
        } => is_number(expr),
        Expr::Value(v) => matches!(v.value, Value::Number(..) | Value::Null),
        _ => false,
    }
}

/// Whether a select's list holds an aggregate that takes `DISTINCT` (`COUNT(DISTINCT x)`).
fn aggregates_distinct(select: &sqlparser::ast::Select) -> bool {
    use std::ops::ControlFlow;
    select.projection.iter().any(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
            sqlparser::ast::visit_expressions(e, |x| match x {
                Expr::Function(f)
                    if matches!(&f.args, sqlparser::ast::FunctionArguments::List(l)
                        if l.duplicate_treatment == Some(sqlparser::ast::DuplicateTreatment::Distinct)) =>
                {
                    ControlFlow::Break(())
                }
                _ => ControlFlow::Continue(()),
            })
            .is_break()
        }
        _ => false,
    })
}

/// Whether MariaDB sorts a select's groups again in a temporary table, where it groups by
/// sorting for a `DISTINCT` aggregate ([`groups_by_sorting`]) but is asked for another order:
/// `order` is not the GROUP BY's first expressions (MariaDB's `test_if_subpart`), so
/// `GROUP BY 1 ORDER BY 1, 2` sends its columns from that table.
fn sorted_again(select: &sqlparser::ast::Select, order: &[&Expr]) -> bool {
    let sqlparser::ast::GroupByExpr::Expressions(groups, _) = &select.group_by else {
        return false;
    };
    if groups.is_empty()
        || order.is_empty()
        || !groups_by_a_column(select)
        || !aggregates_distinct(select)
        || never_true(select)
    {
        return false;
    }
    // An expression by its place in the select list (`1`) or its alias, as it is; none for a
    // place the list has not.
    let item = |e: &'_ Expr| -> Option<Expr> {
        match (listed_item(select, e), e) {
            (Some(x), _) => Some(x),
            (None, Expr::Value(v)) if matches!(v.value, Value::Number(..)) => None,
            (None, _) => Some(e.clone()),
        }
    };
    order.len() > groups.len()
        || order
            .iter()
            .zip(groups)
            .any(|(o, g)| match (item(o), item(g)) {
                (Some(a), Some(b)) => a != b,
                _ => true,
            })
}

/// What typing a tree finds of each expression in it, for the translation, which rewrites the
/// tree and so can no longer type it whole: by each expression's address in the tree typed, its
/// type and definition (a DOUBLE's fixed decimals, an integer's width). An address is an
/// expression's only while that tree is not rewritten there.
#[derive(Debug, Default)]
pub(super) struct Found(std::collections::HashMap<usize, (Ty, Meta)>);

impl Found {
    /// The address `e` is found by.
    pub(super) fn key(e: &Expr) -> usize {
        e as *const Expr as usize
    }

    /// What was found of the expression at `key` (taken out): `None` where it was not typed.
    pub(super) fn take(&mut self, key: usize) -> Option<(Ty, Meta)> {
        self.0.remove(&key)
    }

    /// How what was found is written as a string, where it is a DOUBLE of fixed decimals
    /// ([`Declared::Double`]) or a FLOAT ([`Declared::Float`]).
    pub(super) fn fixed(found: Option<(Ty, Meta)>) -> Option<Declared> {
        match found.and_then(|(t, m)| (t == Ty::Double).then(|| m.declared())) {
            Some(Some(d @ (Declared::Double(_) | Declared::Float))) => Some(d),
            _ => None,
        }
    }

    pub(super) fn clear(&mut self) {
        self.0.clear();
    }
}

/// A relation's columns: each one's name (where it has one a query can name), type and
/// definition.
type Columns = Vec<(Option<String>, Ty, Meta)>;

/// The common table expressions in scope: each one's name (lower case) and its columns (`None`
/// where they are not known).
pub(super) type Ctes = Vec<(String, Option<Columns>)>;

/// The common table expressions in scope inside `query`: `outer`'s and its own `WITH`'s, each
/// typed seeing those before it.
pub(super) fn ctes_of(query: &Query, outer: &Ctes) -> Ctes {
    ctes_with(query, outer, &mut Found::default())
}

fn ctes_with(query: &Query, outer: &Ctes, calls: &mut Found) -> Ctes {
    let mut scope = outer.clone();
    if let Some(with) = &query.with {
        for cte in &with.cte_tables {
            let mut columns = table_columns(&cte.query, &scope, calls);
            if let Some(c) = columns.as_mut().filter(|_| !cte.alias.columns.is_empty()) {
                rename(c, &cte.alias.columns);
            }
            scope.push((cte.alias.name.value.to_ascii_lowercase(), columns));
        }
    }
    scope
}

/// The type of a scalar subquery (its one column's), `Other` where not known.
pub(super) fn subquery(query: &Query, ctes: &Ctes) -> Ty {
    match query_types(query, ctes, &mut Found::default()).as_deref() {
        Some([t]) => *t,
        _ => Ty::Other,
    }
}

/// The types of a query's result columns (`None` where a `*` or a `VALUES` hides them).
fn query_types(query: &Query, ctes: &Ctes, calls: &mut Found) -> Option<Vec<Ty>> {
    Some(
        query_columns(query, ctes, calls)?
            .into_iter()
            .map(|c| c.1)
            .collect(),
    )
}

/// A query's result columns, named and typed. Its common table expressions are typed in order,
/// each seeing those before it (a raw table's name they take is theirs from then on).
fn query_columns(query: &Query, ctes: &Ctes, calls: &mut Found) -> Option<Columns> {
    let scope = if query.with.is_some() {
        ctes_with(query, ctes, calls)
    } else {
        ctes.clone()
    };
    let order: Vec<&Expr> = match &query.order_by {
        Some(sqlparser::ast::OrderBy {
            kind: sqlparser::ast::OrderByKind::Expressions(by),
            ..
        }) => by.iter().map(|o| &o.expr).collect(),
        _ => Vec::new(),
    };
    set_columns(&query.body, &scope, calls, &order)
}

/// The columns of `query` read as a table (a derived table, a common table expression): as
/// the query declares them, or where MariaDB materializes it, as its temporary table's fields.
fn table_columns(query: &Query, ctes: &Ctes, calls: &mut Found) -> Option<Columns> {
    let mut columns = query_columns(query, ctes, calls)?;
    if materialized(query) {
        for c in &mut columns {
            c.2 = c.2.materialized();
            // NULL there is an empty binary string (`MIN(NULL)`'s type).
            if c.1 == Ty::Null {
                c.1 = Ty::Text;
            }
        }
    }
    Some(columns)
}

/// A select list item's position, length and decimals ([`double_fields`]).
pub(super) type DoubleField = (usize, u32, u8);

/// The DOUBLEs of fixed decimals MariaDB stores in the temporary table it reads `query` from
/// as a table (a derived table, a common table expression it materializes): its SELECT, and
/// each select list item's position, length and decimals, whose value is stored as such a
/// column stores it (`functions::double_field`). Only a query of one SELECT whose items are all
/// expressions (no `*`) is followed.
pub(super) fn double_fields<'q>(
    query: &'q Query,
    ctes: &Ctes,
) -> Option<(&'q Select, Vec<DoubleField>)> {
    let mut body = query.body.as_ref();
    while let SetExpr::Query(q) = body {
        body = q.body.as_ref();
    }
    let SetExpr::Select(select) = body else {
        return None;
    };
    let expressions = select.projection.iter().all(|i| {
        matches!(
            i,
            SelectItem::UnnamedExpr(_) | SelectItem::ExprWithAlias { .. }
        )
    });
    if !expressions || !materialized(query) {
        return None;
    }
    let fields: Vec<DoubleField> = query_columns(query, ctes, &mut Found::default())?
        .iter()
        .enumerate()
        .filter_map(|(k, c)| match c.2.declared() {
            Some(Declared::Double(d)) => Some((k, c.2.length, d)),
            _ => None,
        })
        .collect();
    (!fields.is_empty()).then_some((select, fields))
}

/// Whether MariaDB reads `query` as a table through a temporary table of its rows rather than
/// merging it into the select that reads it (`derived_merge`): where it has a `LIMIT`, a set
/// operation, or a select that groups, aggregates, takes `DISTINCT`, `HAVING` or a window
/// function, or reads no table.
fn materialized(query: &Query) -> bool {
    if query.limit_clause.is_some() || query.fetch.is_some() {
        return true;
    }
    match query.body.as_ref() {
        SetExpr::Select(s) => {
            let grouped = is_grouped(s);
            let over = s.projection.iter().any(|item| match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                    holds_an_aggregate(e) || holds_a_window_function(e)
                }
                _ => false,
            });
            s.from.is_empty() || grouped || over || s.distinct.is_some() || s.having.is_some()
        }
        SetExpr::Query(q) => materialized(q),
        _ => true,
    }
}

/// Whether an expression holds a window function (`… OVER (…)`).
fn holds_a_window_function(e: &Expr) -> bool {
    sqlparser::ast::visit_expressions(e, |x| match x {
        Expr::Function(f) if f.over.is_some() => std::ops::ControlFlow::Break(()),
        _ => std::ops::ControlFlow::Continue(()),
    })
    .is_break()
}

/// `columns` under the names a table alias gives them (`t(a, b)`); unnamed where they differ in
/// number.
fn rename(columns: &mut Columns, names: &[sqlparser::ast::TableAliasColumnDef]) {
    for (k, c) in columns.iter_mut().enumerate() {
        c.0 = names.get(k).map(|n| n.name.value.to_ascii_lowercase());
    }
    if names.len() != columns.len() {
        columns.iter_mut().for_each(|c| c.0 = None);
    }
}

/// A query body's columns; `order`: the query's ORDER BY, where the body is a select.
fn set_columns(body: &SetExpr, ctes: &Ctes, calls: &mut Found, order: &[&Expr]) -> Option<Columns> {
    match body {
        SetExpr::Select(select) => {
            let scope = Scope::of(select, ctes, calls);
            let mut columns = Vec::with_capacity(select.projection.len());
            // Each result column's select list item (a `*` sends several).
            let mut items = Vec::with_capacity(select.projection.len());
            let mut all = true;
            for item in &select.projection {
                let before = columns.len();
                match item {
                    SelectItem::UnnamedExpr(e) => {
                        let name = match e {
                            Expr::Identifier(i) => Some(i.value.to_ascii_lowercase()),
                            Expr::CompoundIdentifier(p) => {
                                p.last().map(|i| i.value.to_ascii_lowercase())
                            }
                            _ => None,
                        };
                        let (t, meta) = scope.item(e, calls);
                        columns.push((name, t, meta))
                    }
                    SelectItem::ExprWithAlias { expr, alias } => {
                        let (t, meta) = scope.item(expr, calls);
                        columns.push((Some(alias.value.to_ascii_lowercase()), t, meta))
                    }
                    SelectItem::Wildcard(options) if plain_wildcard(options) => {
                        match scope.wildcard(None) {
                            Some(read) => columns.extend(read),
                            None => all = false,
                        }
                    }
                    SelectItem::QualifiedWildcard(
                        sqlparser::ast::SelectItemQualifiedWildcardKind::ObjectName(name),
                        options,
                    ) if plain_wildcard(options) => {
                        let table = match name.0.last() {
                            Some(ObjectNamePart::Identifier(i)) => scope.wildcard(Some(&i.value)),
                            _ => None,
                        };
                        match table {
                            Some(read) => columns.extend(read),
                            None => all = false,
                        }
                    }
                    _ => all = false,
                }
                items.extend(std::iter::repeat_n(item, columns.len() - before));
            }
            if rolls_up(select) {
                for (k, item) in items.iter().enumerate() {
                    if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } =
                        item
                    {
                        if let Some(c) = columns.get_mut(k).filter(|_| over_a_group(e, select)) {
                            c.2.nullable = true;
                        }
                    }
                }
            }
            // A grouped or DISTINCT select's rows go through a temporary table, which holds a
            // long string (more than 512 characters) computed as a BLOB.
            let grouped = is_grouped(select);
            let by_groups = groups_in_a_temporary_table(select);
            // Where rows go through a temporary table, its columns are sent (not with ROLLUP,
            // whose rows are computed again).
            let sorted = sorted_again(select, order);
            let through_a_table =
                (keys_in_a_temporary_table(select) || sorted) && !rolls_up(select);
            if select.distinct.is_some() || grouped {
                for (k, item) in items.into_iter().enumerate() {
                    let computed = match item {
                        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                            !matches!(
                                e,
                                Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Value(_)
                            )
                        }
                        _ => false,
                    };
                    let min_max = match item {
                        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                            super::coldef::is_min_max(e)
                        }
                        _ => false,
                    };
                    let held = through_a_table
                        && match item {
                            // Sorted again, every aggregate is stored (a variance's too); an
                            // expression over them is computed again.
                            SelectItem::UnnamedExpr(e)
                            | SelectItem::ExprWithAlias { expr: e, .. }
                                if sorted =>
                            {
                                aggregate_name(e).is_some()
                                    || (!holds_an_aggregate(e) && varies_per_row(e))
                            }
                            SelectItem::UnnamedExpr(e)
                            | SelectItem::ExprWithAlias { expr: e, .. } => {
                                held_in_a_temporary_table(e)
                            }
                            // A `*`'s columns, read from its tables.
                            _ => true,
                        };
                    if let Some(c) = columns.get_mut(k) {
                        c.2 =
                            c.2.through_temporary_table(computed, min_max, by_groups, held);
                        if computed && held {
                            c.2 = c.2.stored_char();
                        }
                        // A FLOAT's MIN/MAX grouped in a temporary table over base tables
                        // is a copy of the column's own field, of a FLOAT's 12 (23 where it
                        // is computed over all rows, again for ROLLUP, or over a derived
                        // table's column: `coldef::held_float`).
                        if min_max
                            && by_groups
                            && !rolls_up(select)
                            && reads_base_tables(select, ctes)
                            && c.2.code == super::coldef::Code::Float
                        {
                            c.2.length = 12;
                        }
                    }
                }
            } else if select.projection.iter().any(
                |i| matches!(i, SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } if holds_a_window_function(e)),
            ) {
                // Window functions are computed over a temporary table of the rows: an item
                // computed per row (or from a window function) is sent from its field there, a
                // window function itself and a constant as they are.
                for (k, item) in items.into_iter().enumerate() {
                    let (SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }) =
                        item
                    else {
                        continue;
                    };
                    let computed = !matches!(
                        e,
                        Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Value(_)
                    );
                    let window_call = matches!(e, Expr::Function(f) if f.over.is_some());
                    if computed && !window_call && (varies_per_row(e) || holds_a_window_function(e)) {
                        if let Some(c) = columns.get_mut(k) {
                            c.2 = c.2.through_temporary_table(true, false, false, true).stored_char();
                        }
                    }
                }
            }
            all.then_some(columns)
        }
        SetExpr::Query(q) => query_columns(q, ctes, calls),
        SetExpr::SetOperation {
            left,
            right,
            op,
            set_quantifier,
        } => {
            // A UNION without ALL, an INTERSECT and an EXCEPT send their temporary table's
            // columns.
            let through_a_table = *op != sqlparser::ast::SetOperator::Union
                || matches!(
                    set_quantifier,
                    sqlparser::ast::SetQuantifier::None | sqlparser::ast::SetQuantifier::Distinct
                );
            let (l, r) = (
                set_columns(left, ctes, calls, &[]),
                set_columns(right, ctes, calls, &[]),
            );
            let (l, r) = (l?, r?);
            (l.len() == r.len()).then(|| {
                l.into_iter()
                    .zip(r)
                    // A UNION's rows are not converted here: a DATE beside a DATETIME is
                    // not followed.
                    .map(|((name, a, m), (_, b, n))| match merge(a, b) {
                        Ty::DateTime if a != b => (name, Ty::Other, m),
                        // A FLOAT beside another number is a DOUBLE as long as the longer
                        // (`req_time UNION ALL 1`: 12), written with all its digits.
                        Ty::Double if float_beside_another(m, n) => (
                            name,
                            Ty::Double,
                            Meta::double(m.length.max(n.length), 31, m.nullable || n.nullable)
                                .sent_from_a_table(through_a_table),
                        ),
                        // NULL in every operand: the union table's field of it, a binary
                        // CHAR(0) (a UNION ALL's rows are typed by that table too).
                        Ty::Null => (
                            name,
                            Ty::Null,
                            m.united(n)
                                .through_temporary_table(true, false, false, true),
                        ),
                        t if t == a => (name, t, m.united(n).sent_from_a_table(through_a_table)),
                        t => (name, t, Meta::of_type(t)),
                    })
                    .collect()
            })
        }
        _ => None,
    }
}

/// Whether a `*` is MySQL's, without another dialect's options (`EXCLUDE`, `REPLACE`, …).
fn plain_wildcard(o: &sqlparser::ast::WildcardAdditionalOptions) -> bool {
    o.opt_ilike.is_none()
        && o.opt_exclude.is_none()
        && o.opt_except.is_none()
        && o.opt_replace.is_none()
        && o.opt_rename.is_none()
        && o.opt_alias.is_none()
}

/// Whether a join sends both sides' columns to a `*` (every join but `NATURAL` and `USING`,
/// which send the columns of the names they join on once; and the joins MySQL has no word for).
fn sends_both_sides(op: &sqlparser::ast::JoinOperator) -> bool {
    use sqlparser::ast::JoinConstraint as C;
    matches!(super::resolution::constraint(op), Some(C::On(_) | C::None))
}

/// Whether of two numbers merged one is a FLOAT and the other another number.
fn float_beside_another(m: Meta, n: Meta) -> bool {
    use super::coldef::Code;
    let float = |x: Meta| x.code == Code::Float;
    m.code != Code::Null && n.code != Code::Null && float(m) != float(n)
}

/// Whether every relation `select` reads is a base table (no derived table, no common table
/// expression of `ctes`).
fn reads_base_tables(select: &sqlparser::ast::Select, ctes: &Ctes) -> bool {
    select
        .from
        .iter()
        .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)))
        .all(|factor| match factor {
            TableFactor::Table { name, .. } => match name.0.last() {
                Some(ObjectNamePart::Identifier(i)) => {
                    let lower = i.value.to_ascii_lowercase();
                    !ctes.iter().any(|c| c.0 == lower)
                }
                _ => false,
            },
            _ => false,
        })
}

/// The name a qualified `*` names a table by: its alias, else its own name (a derived table
/// without an alias has none).
fn qualifier(factor: &TableFactor) -> Option<String> {
    let (name, alias) = match factor {
        TableFactor::Table { name, alias, .. } => (
            match name.0.last() {
                Some(ObjectNamePart::Identifier(i)) => Some(&i.value),
                _ => None,
            },
            alias,
        ),
        TableFactor::Derived { alias, .. } => (None, alias),
        _ => (None, &None),
    };
    alias
        .as_ref()
        .map(|a| &a.name.value)
        .or(name)
        .map(|n| n.to_ascii_lowercase())
}

/// The columns a SELECT reads, where every table it reads is known: a raw table, a derived
/// table or a common table expression whose columns are typed (`None` otherwise: a report
/// table's columns are not followed).
pub(super) struct Scope {
    /// Each table read, in the order of `FROM` and its joins, under the name a qualified `*`
    /// names it by (its alias, else its own name); `None` where a table is not known.
    tables: Option<Vec<(Option<String>, Columns)>>,
    /// A join merges columns of the same name (`USING`, `NATURAL`), which a `*` sends once:
    /// its columns are not told.
    merges: bool,
    ctes: Ctes,
    /// The select list's aliases and their items' types: a name no table has is the item's
    /// (`HAVING n > '10'` compares `COUNT(*) AS n` as the number it is), as SQLite and MySQL
    /// both read it.
    aliases: Vec<(String, Ty, Meta)>,
}

impl Scope {
    /// A scope where no column is known (outside any SELECT).
    pub(super) fn none() -> Scope {
        Scope {
            tables: None,
            merges: false,
            ctes: Vec::new(),
            aliases: Vec::new(),
        }
    }

    /// Whether every table the SELECT reads is known (no `FROM` is a known one: MySQL opens
    /// every table before it reads anything else of the statement).
    pub(super) fn knows_every_table(&self) -> bool {
        self.tables.is_some()
    }

    /// The scope of `select` as the translation meets it, inside the common table expressions
    /// `ctes`.
    pub(super) fn of_select(select: &Select, ctes: &Ctes) -> Scope {
        Scope::of(select, ctes, &mut Found::default())
    }

    fn of(select: &Select, ctes: &Ctes, calls: &mut Found) -> Scope {
        let mut tables = Some(Vec::new());
        let merges = !select
            .from
            .iter()
            .flat_map(|t| &t.joins)
            .all(|j| sends_both_sides(&j.join_operator));
        let factors = select
            .from
            .iter()
            .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)));
        for factor in factors {
            let read = match factor {
                TableFactor::Table { name, .. } => match name.0.last() {
                    Some(ObjectNamePart::Identifier(i)) => {
                        let lower = i.value.to_ascii_lowercase();
                        match ctes.iter().rev().find(|c| c.0 == lower) {
                            Some((_, c)) => c.clone(),
                            None => Raw::of(&i.value)
                                .map(raw_columns)
                                .or_else(|| report_columns(&i.value))
                                .or_else(|| information_schema_columns(&i.value)),
                        }
                    }
                    _ => None,
                },
                TableFactor::Derived {
                    subquery, alias, ..
                } => {
                    let mut c = table_columns(subquery, ctes, calls);
                    if let (Some(c), Some(a)) = (c.as_mut(), alias) {
                        if !a.columns.is_empty() {
                            rename(c, &a.columns);
                        }
                    }
                    c
                }
                _ => None,
            };
            match (read, tables.as_mut()) {
                (Some(read), Some(tables)) => tables.push((qualifier(factor), read)),
                _ => tables = None,
            }
        }
        // An outer join's other side may have no row: its columns may be NULL there
        // (`LEFT JOIN`'s right table, `RIGHT JOIN`'s tables before it).
        if let Some(tables) = tables.as_mut() {
            let mut at = 0;
            for from in &select.from {
                let first = at;
                at += 1;
                for join in &from.joins {
                    use sqlparser::ast::JoinOperator as J;
                    let nullable = match join.join_operator {
                        J::Left(_) | J::LeftOuter(_) => at..at + 1,
                        J::Right(_) | J::RightOuter(_) => first..at,
                        _ => at..at,
                    };
                    for (_, columns) in tables.get_mut(nullable).unwrap_or_default() {
                        for column in columns.iter_mut() {
                            column.2 = column.2.nullable_as_joined();
                        }
                    }
                    at += 1;
                }
            }
        }
        let mut scope = Scope {
            tables,
            merges,
            ctes: ctes.clone(),
            aliases: Vec::new(),
        };
        if scope.tables.is_some() {
            let aliases = select
                .projection
                .iter()
                .filter_map(|i| match i {
                    SelectItem::ExprWithAlias { expr, alias } => {
                        let (t, m) = scope.typed(expr, calls);
                        Some((alias.value.to_ascii_lowercase(), t, m))
                    }
                    _ => None,
                })
                .collect();
            scope.aliases = aliases;
        }
        scope
    }

    /// Whether `name` is one of the select list's aliases and no column of its tables, every
    /// table's columns known: a `WHERE` that names it names no column (MySQL's error 1054;
    /// SQLite would take the alias).
    pub(super) fn alias_only(&self, name: &str) -> bool {
        let lower = name.to_ascii_lowercase();
        let Some(tables) = &self.tables else {
            return false;
        };
        let mut columns = tables.iter().flat_map(|t| &t.1);
        self.aliases.iter().any(|a| a.0 == lower)
            && columns.all(|c| c.0.as_deref().is_some_and(|n| n != lower))
    }

    /// The columns `*` (`qualifier` `None`) or `t.*` sends, where every table is known.
    fn wildcard(&self, qualifier: Option<&str>) -> Option<Columns> {
        let tables = self.tables.as_ref().filter(|_| !self.merges)?;
        let lower = qualifier.map(str::to_ascii_lowercase);
        let mut read = tables
            .iter()
            .filter(|(name, _)| lower.is_none() || *name == lower)
            .peekable();
        read.peek()?;
        Some(read.flat_map(|(_, c)| c.iter().cloned()).collect())
    }

    /// `e`'s type in this scope.
    pub(super) fn type_of(&self, e: &Expr) -> Ty {
        self.typed(e, &mut Found::default()).0
    }

    /// A column's type: what every table read that has a column of its name says it is.
    fn column(&self, name: &str) -> Ty {
        self.column_of(name).0
    }

    /// A column's type and definition (the definition where every table's column of its name
    /// has the same).
    fn column_of(&self, name: &str) -> (Ty, Option<Meta>) {
        self.column_in(None, name)
    }

    /// A column named by `parts` (`c`, `t.c`, `db.t.c`): the qualified one in the table its
    /// qualifier names where one does (`t.value` is `timer`'s DOUBLE beside `timertag`'s
    /// `value`), else as [`Scope::column_of`] finds it by name.
    fn column_named(&self, parts: &[Ident]) -> (Ty, Option<Meta>) {
        let Some(last) = parts.last() else {
            return (Ty::Other, None);
        };
        let qualifier = parts
            .len()
            .checked_sub(2)
            .map(|i| parts[i].value.to_ascii_lowercase());
        let named = qualifier.filter(|q| {
            self.tables
                .iter()
                .flatten()
                .any(|t| t.0.as_deref() == Some(q.as_str()))
        });
        self.column_in(named.as_deref(), &last.value)
    }

    /// A column of the tables named `qualifier` (every table's where `None`).
    fn column_in(&self, qualifier: Option<&str>, name: &str) -> (Ty, Option<Meta>) {
        let Some(tables) = &self.tables else {
            return (Ty::Other, None);
        };
        let lower = name.to_ascii_lowercase();
        let mut found: Option<(Ty, Option<Meta>)> = None;
        for (_, ty, meta) in tables
            .iter()
            .filter(|t| qualifier.is_none() || t.0.as_deref() == qualifier)
            .flat_map(|t| &t.1)
            .filter(|c| c.0.as_deref() == Some(lower.as_str()))
        {
            match found {
                Some((f, _)) if f != *ty => return (Ty::Other, None),
                Some((f, m)) => found = Some((f, m.filter(|m| m == meta))),
                None => found = Some((*ty, Some(*meta))),
            }
        }
        let alias = || {
            let mut named = self.aliases.iter().filter(|a| a.0 == lower);
            match (named.next(), named.next(), qualifier) {
                (Some((_, t, m)), None, None) => (*t, Some(*m)),
                _ => (Ty::Other, None),
            }
        };
        found.unwrap_or_else(alias)
    }

    /// A select list item's type and definition: a bit-value or hexadecimal literal alone
    /// (`b'101'`, `0x41`) is the binary string of its bytes, as MySQL answers it (a number
    /// wherever it is computed with).
    fn item(&self, e: &Expr, calls: &mut Found) -> (Ty, Meta) {
        match super::coldef::byte_string_literal(e) {
            Some(meta) => (Ty::Binary, meta),
            None => self.typed(e, calls),
        }
    }

    /// `e`'s type and its column definition, as [`Scope::typed`] finds them, what it finds of
    /// each expression in `e` put in `found`: what the translation types `e` by before it
    /// rewrites it.
    pub(super) fn typed_into(&self, e: &Expr, found: &mut Found) -> (Ty, Meta) {
        self.typed(e, found)
    }

    /// `e`'s type and its column definition; what it finds of each expression in `e` goes to
    /// `found`. Every subexpression is typed once: its children first, then [`node`] from
    /// theirs.
    fn typed(&self, e: &Expr, calls: &mut Found) -> (Ty, Meta) {
        let (t, meta) = self.typed_here(e, calls);
        calls.0.insert(Found::key(e), (t, meta));
        (t, meta)
    }

    fn typed_here(&self, e: &Expr, calls: &mut Found) -> (Ty, Meta) {
        if let Expr::Subquery(q) = e {
            return match query_columns(q, &self.ctes, calls).as_deref() {
                Some([(_, t, m)]) => (*t, m.subquery()),
                _ => (Ty::Other, Meta::of_type(Ty::Other)),
            };
        }
        let (kids, mut metas): (Vec<Ty>, Vec<Meta>) =
            children(e).iter().map(|k| self.typed(k, calls)).unzip();
        // A temporal read as a number is declared as the number it is read as.
        // One with a fraction, where the fraction counts, as the DECIMAL it is read as.
        let numbers = fractions_read(e, &kids, &metas);
        if let Some(r) = reads_numbers(e) {
            for ((t, n), m) in kids.iter().zip(&numbers).zip(metas.iter_mut()) {
                *m = match n {
                    Ty::Dec(f) if t != n => Meta::temporal_decimal(*t, *f, m.nullable),
                    _ if r == Reading::Rounded && *t == Ty::Date => Meta::rounded_date(m.nullable),
                    // A deviation reads its operand's decimals as they are (MariaDB's
                    // `Item_sum_variance`: a DATETIME(2)'s 2 and 4 more).
                    _ if as_number(r, *t).is_some() && is_deviation(e) => {
                        let mut read = Meta::temporal_number(*t, m.decimals.min(6), m.nullable);
                        read.decimals = m.decimals.min(6);
                        read
                    }
                    _ if as_number(r, *t).is_some() => {
                        Meta::temporal_number(*t, m.decimals.min(6), m.nullable)
                    }
                    _ => *m,
                };
            }
        }
        let t = self.node_declared(e, &numbers, &metas);
        let column = match e {
            Expr::Identifier(i) => self.column_of(&i.value).1,
            Expr::CompoundIdentifier(p) => self.column_named(p).1,
            _ => None,
        };
        let m = super::coldef::node(e, t, &metas, column);
        (int_val_type(e, t, &m), m)
    }

    /// [`Scope::node`], where the children's declarations `metas` decide too: `UNIX_TIMESTAMP(x)`
    /// and `TIME_TO_SEC(x)` keep the digits of `x`'s fraction, which its declaration holds (a
    /// DATETIME's, a literal's as written). The translation types a node by this rule as the
    /// typing does.
    pub(super) fn node_declared(&self, e: &Expr, kids: &[Ty], metas: &[Meta]) -> Ty {
        super::coldef::seconds_type(e, metas).unwrap_or_else(|| self.node(e, kids))
    }

    /// `e`'s type from its [`children`]'s types, `kids` (each `Other` where they do not match
    /// the children in number: what the caller met is not what is typed here).
    pub(super) fn node(&self, e: &Expr, kids: &[Ty]) -> Ty {
        // A temporal read as a number is one: an integer (`DATE '2024-03-05' + 0` is 20240305).
        let read = reads_numbers(e).map(|r| {
            kids.iter()
                .map(|t| as_number(r, *t).unwrap_or(*t))
                .collect::<Vec<_>>()
        });
        let kids = read.as_deref().unwrap_or(kids);
        // A constant BIGINT UNSIGNED past 2^63 negated is a DECIMAL (`-(~0)`), as MariaDB
        // types it (`Item_func_neg`); any other stays an integer.
        if let (
            Expr::UnaryOp {
                op: UnaryOperator::Minus,
                expr,
            },
            [Ty::UInt],
        ) = (e, kids)
        {
            // (`-9223372036854775808`, a literal, is the least BIGINT: below.)
            if unsigned_constant(expr).is_some_and(|u| u >= 1 << 63)
                && unsigned_literal(expr) != Some(1 << 63)
            {
                return Ty::Dec(0);
            }
        }
        // An unsigned operand read as its value (not its bits) is an integer there.
        let valued: Vec<Ty> = kids
            .iter()
            .zip(unsigned_reads(e, kids))
            .map(|(t, bits)| {
                if *t == Ty::UInt && !bits {
                    unsigned_value(e)
                } else {
                    *t
                }
            })
            .collect();
        let kids = valued.as_slice();
        let expected = children(e);
        // A function's arguments come first among the types met, whatever its clauses add.
        let aligned = kids.len() == expected.len()
            || (matches!(e, Expr::Function(_)) && kids.len() > expected.len());
        let kid = |k: usize| {
            if aligned {
                kids.get(k).copied().unwrap_or(Ty::Other)
            } else {
                Ty::Other
            }
        };
        match e {
            Expr::Identifier(i) if is_user_variable(i) => user_type(&i.value[1..]),
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) if system_variable(e).is_some() => {
                system_variable(e).map_or(Ty::Other, system_type)
            }
            Expr::Identifier(i) if i.value.starts_with('@') && i.quote_style.is_none() => Ty::Other,
            // `@a := x` is `x`.
            Expr::BinaryOp {
                op: BinaryOperator::Assignment,
                ..
            } => kid(1),
            Expr::Identifier(i) => self.column(&i.value),
            Expr::CompoundIdentifier(parts) => self.column_named(parts).0,
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) => number(n),
                Value::Null => Ty::Null,
                Value::Boolean(_) => Ty::Int,
                Value::SingleQuotedString(_)
                | Value::DoubleQuotedString(_)
                | Value::NationalStringLiteral(_) => Ty::Text,
                // `0x41` and `b'1'` are numbers in an expression (alone in a select list, their
                // bytes: `Scope::item`); `x'41'` a binary string.
                Value::HexStringLiteral(_) if hex_string_at(v.span.start) => Ty::Binary,
                Value::HexStringLiteral(_) | Value::SingleQuotedByteStringLiteral(_) => Ty::UInt,
                _ => Ty::Other,
            },
            Expr::Nested(_) => kid(0),
            // `x COLLATE c` is a string (a number, a temporal or NULL made one, as MySQL's
            // `Item_func_set_collation` makes it); its collation is `translate`'s business.
            Expr::Collate { .. } => match kid(0) {
                t @ (Ty::Text | Ty::Binary | Ty::Other) => t,
                _ => Ty::Text,
            },
            // A charset introducer's string (`_utf8mb4'x'`), a binary one for `_binary`.
            Expr::Prefixed { prefix, .. } if prefix.value.starts_with('_') => {
                if prefix.value.eq_ignore_ascii_case("_binary") {
                    Ty::Binary
                } else {
                    Ty::Text
                }
            }
            // `-9223372036854775808` is the least BIGINT; any other unsigned literal negated a
            // DECIMAL, as MySQL types them.
            Expr::UnaryOp {
                op: UnaryOperator::Minus,
                expr,
            } if unsigned_literal(expr).is_some() => {
                if unsigned_literal(expr) == Some(1 << 63) {
                    Ty::Int
                } else {
                    Ty::Dec(0)
                }
            }
            Expr::UnaryOp { op, .. } => {
                let t = kid(0);
                match op {
                    UnaryOperator::Minus | UnaryOperator::Plus => match t {
                        Ty::Int | Ty::UInt | Ty::Dec(_) | Ty::Double => t,
                        Ty::Null => Ty::Double,
                        // A string negated is read as a DOUBLE.
                        Ty::Text if *op == UnaryOperator::Minus => Ty::Double,
                        _ => Ty::Other,
                    },
                    UnaryOperator::Not => Ty::Int,
                    UnaryOperator::BitwiseNot => Ty::UInt,
                    _ => Ty::Other,
                }
            }
            Expr::BinaryOp {
                op: BinaryOperator::Plus | BinaryOperator::Minus,
                left,
                right,
            } if matches!(right.as_ref(), Expr::Interval(_)) => moved(kid(0), right),
            Expr::BinaryOp {
                op: BinaryOperator::Plus,
                left,
                right: _,
            } if matches!(left.as_ref(), Expr::Interval(_)) => moved(kid(1), left),
            Expr::BinaryOp { op, .. } => binary(op, kid(0), kid(1)),
            e if is_predicate(e) => Ty::Int,
            Expr::AnyOp { .. }
            | Expr::AllOp { .. }
            | Expr::Position { .. }
            | Expr::Extract { .. } => Ty::Int,
            Expr::Substring { .. } | Expr::Trim { .. } => Ty::Text,
            Expr::Ceil { .. } | Expr::Floor { .. } => match kid(0) {
                t @ (Ty::Int | Ty::UInt | Ty::Double | Ty::DateTime | Ty::Time) => t,
                Ty::Dec(_) => Ty::Int,
                // A string is read as a DOUBLE.
                Ty::Null | Ty::Text | Ty::Binary => Ty::Double,
                _ => Ty::Other,
            },
            Expr::Cast { data_type, .. } => cast_type(data_type),
            Expr::TypedString(ts) => cast_type(&ts.data_type),
            Expr::Convert {
                data_type, charset, ..
            } => match (data_type, charset) {
                (Some(t), _) => cast_type(t),
                (None, Some(_)) => Ty::Text,
                (None, None) => Ty::Other,
            },
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => case_results(operand.is_some(), conditions.len(), else_result.is_some())
                .fold(Ty::Null, |t, k| merge(t, kid(k))),
            Expr::Function(f) => {
                let name = match f.name.0.last() {
                    Some(ObjectNamePart::Identifier(i)) => i,
                    _ => return Ty::Other,
                };
                let FunctionArguments::List(list) = &f.args else {
                    return function(&name.value.to_ascii_uppercase(), &[], false);
                };
                let star = list
                    .args
                    .iter()
                    .any(|a| matches!(a, FunctionArg::Unnamed(FunctionArgExpr::Wildcard)));
                let args: Vec<(&Expr, Ty)> = expected
                    .iter()
                    .enumerate()
                    .map(|(k, x)| (*x, kid(k)))
                    .collect();
                let upper = name.value.to_ascii_uppercase();
                match function(&upper, &args, star) {
                    Ty::Other if TEXT_RESULTS.contains(&upper.as_str()) => Ty::Text,
                    t => t,
                }
            }
            _ => Ty::Other,
        }
    }
}

/// `CEIL(x)`/`FLOOR(x)` as MySQL writes them (no unit, no scale).
fn plain_rounding(field: &CeilFloorKind) -> bool {
    matches!(
        field,
        CeilFloorKind::DateTimeField(DateTimeField::NoDateTime)
    )
}

/// How an expression reads temporal operands ([`reads_numbers`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reading {
    /// Each as its number: a DATE `YYYYMMDD`, a DATETIME `YYYYMMDDhhmmss`, a TIME `hhmmss`.
    Numbers,
    /// Rounded (`ROUND`, `TRUNCATE`, `FLOOR`, `CEIL`): a DATE as its number; a DATETIME or
    /// TIME stays itself, rounded to its own seconds.
    Rounded,
    /// Negated or `ABS`, whose result follows its operand's type: a temporal as its number, a
    /// DECIMAL (of its fraction's digits, none here) as MySQL types it.
    Followed,
}

/// Functions that read their arguments as numbers (a temporal as its number, as MySQL's
/// `val_int`/`val_real`/`val_decimal` read one).
const NUMERIC_FUNCTIONS: &[&str] = &[
    "SIGN",
    // A number formatted: a temporal's digits (`FORMAT(TIME '12:34:56', 2)` is 123,456.00,
    // MariaDB's `Item_func_format` reading `val_real`).
    "FORMAT",
    // Seconds, a temporal's digits among them (`SEC_TO_TIME(TIME '12:34:56')` is 34:17:36).
    "SEC_TO_TIME",
    "SQRT",
    "EXP",
    "LN",
    "LOG",
    "LOG2",
    "LOG10",
    "POW",
    "POWER",
    "MOD",
    "SIN",
    "COS",
    "TAN",
    "ASIN",
    "ACOS",
    "ATAN",
    "ATAN2",
    "COT",
    "DEGREES",
    "RADIANS",
    "RAND",
    "CHAR",
    "INET_NTOA",
    "INTERVAL",
    "SLEEP",
    "SUM",
    "AVG",
    "BIT_OR",
    "BIT_AND",
    "BIT_XOR",
    "BIT_COUNT",
    "STD",
    "STDDEV",
    "STDDEV_POP",
    "STDDEV_SAMP",
    "VARIANCE",
    "VAR_POP",
    "VAR_SAMP",
];

/// The functions that read their first argument as a temporal (MariaDB's `get_date` or
/// `get_time` of it), and those that read both of their first two so.
const TEMPORAL_READERS: &[&str] = &[
    "DATE",
    "TIME",
    "TIMESTAMP",
    "YEAR",
    "QUARTER",
    "MONTH",
    "DAY",
    "DAYOFMONTH",
    "HOUR",
    "MINUTE",
    "SECOND",
    "MICROSECOND",
    "DAYOFWEEK",
    "WEEKDAY",
    "DAYOFYEAR",
    "WEEK",
    "YEARWEEK",
    "DAYNAME",
    "MONTHNAME",
    "LAST_DAY",
    "TO_DAYS",
    "TO_SECONDS",
    "TIME_TO_SEC",
    "DATE_FORMAT",
    "TIME_FORMAT",
    "DATE_ADD",
    "DATE_SUB",
    "ADDDATE",
    "SUBDATE",
    "UNIX_TIMESTAMP",
];
const TEMPORAL_PAIR_READERS: &[&str] = &["ADDTIME", "SUBTIME", "DATEDIFF", "TIMEDIFF"];

/// Which of `e`'s operands (its [`children`], of types `kids`) it reads as a DATE, DATETIME or
/// TIME: a cast to one, a date or time function's temporal arguments, `GREATEST`/`LEAST` of a
/// temporal with others. A number read so is a number (`HOUR(18446744073709551615)` is 838),
/// where a string of the same digits is none.
pub(super) fn reads_temporals(e: &Expr, kids: &[Ty]) -> Vec<bool> {
    let first = |n: usize| (0..kids.len()).map(|k| k < n).collect();
    match e {
        Expr::Cast { data_type, .. } => {
            let temporal = matches!(cast_type(data_type), Ty::Date | Ty::DateTime | Ty::Time);
            first(usize::from(temporal))
        }
        Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_uppercase();
            if TEMPORAL_READERS.contains(&name.as_str()) {
                first(1)
            } else if TEMPORAL_PAIR_READERS.contains(&name.as_str()) {
                first(2)
            } else if matches!(name.as_str(), "GREATEST" | "LEAST")
                && temporal_greatest(kids).is_some()
            {
                first(kids.len())
            } else {
                first(0)
            }
        }
        _ => first(0),
    }
}

/// Whether `e` reads its operands as numbers (arithmetic, bit operations, numeric functions
/// and aggregates, casts to a number), and how it reads a temporal among them. SQLite would
/// read a temporal's text by its leading digits (`2024` of `'2024-03-05'`).
pub(super) fn reads_numbers(e: &Expr) -> Option<Reading> {
    use BinaryOperator as B;
    match e {
        Expr::BinaryOp { left, op, right } => match op {
            B::Plus | B::Minus
                if matches!(left.as_ref(), Expr::Interval(_))
                    || matches!(right.as_ref(), Expr::Interval(_)) =>
            {
                None
            }
            B::Plus
            | B::Minus
            | B::Multiply
            | B::Divide
            | B::Modulo
            | B::MyIntegerDivide
            | B::BitwiseAnd
            | B::BitwiseOr
            | B::BitwiseXor
            | B::PGBitwiseShiftLeft
            | B::PGBitwiseShiftRight => Some(Reading::Numbers),
            _ => None,
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            ..
        } => Some(Reading::Followed),
        Expr::UnaryOp {
            op: UnaryOperator::BitwiseNot,
            ..
        } => Some(Reading::Numbers),
        Expr::Cast { data_type, .. }
        | Expr::Convert {
            data_type: Some(data_type),
            ..
        } => matches!(
            cast_type(data_type),
            Ty::Int | Ty::UInt | Ty::Dec(_) | Ty::Double
        )
        .then_some(Reading::Numbers),
        Expr::Ceil { field, .. } | Expr::Floor { field, .. } if plain_rounding(field) => {
            Some(Reading::Rounded)
        }
        Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_uppercase();
            if ["ROUND", "TRUNCATE", "CEIL", "CEILING", "FLOOR"].contains(&name.as_str()) {
                Some(Reading::Rounded)
            } else if name == "ABS" {
                Some(Reading::Followed)
            } else {
                NUMERIC_FUNCTIONS
                    .contains(&name.as_str())
                    .then_some(Reading::Numbers)
            }
        }
        _ => None,
    }
}

/// Whether `e` reads a temporal operand as MySQL's `val_int` does, its fraction dropped (toward
/// zero: `CAST(TIMESTAMP '2026-11-28 16:44:00.5' AS SIGNED)` is 20261128164400, `BIT_OR(TIME
/// '-00:00:01.5')` reads -1), where other numeric readings keep or round it (`… | 0` rounds).
pub(super) fn truncates_temporals(e: &Expr) -> bool {
    match e {
        Expr::Cast { data_type, .. }
        | Expr::Convert {
            data_type: Some(data_type),
            ..
        } => matches!(cast_type(data_type), Ty::Int | Ty::UInt),
        Expr::Function(f) => matches!(
            f.name.to_string().to_ascii_uppercase().as_str(),
            "BIT_AND" | "BIT_OR" | "BIT_XOR"
        ),
        _ => false,
    }
}

/// `kids`, the types of `e`'s children (declared `metas`), with each DATETIME or TIME of a
/// fraction that `e` reads as a number exactly (`+ - * / %`, `-x`, `ABS`, `MOD`) made the
/// DECIMAL of that many digits it is read as (`TIMESTAMP '2024-03-05 12:34:07.25' + 0` is
/// 20240305123407.25, as MariaDB's `val_decimal` reads it); an integer reading (bits, a cast
/// to an integer, `DIV`) or one of a whole temporal keeps the type met.
pub(super) fn fractions_read(e: &Expr, kids: &[Ty], metas: &[Meta]) -> Vec<Ty> {
    use BinaryOperator as B;
    let exact = match e {
        Expr::BinaryOp { op, .. } => {
            matches!(op, B::Plus | B::Minus | B::Multiply | B::Divide | B::Modulo)
        }
        Expr::Function(f) => {
            matches!(
                f.name.to_string().to_ascii_uppercase().as_str(),
                "ABS" | "MOD"
            )
        }
        _ => reads_numbers(e) == Some(Reading::Followed),
    };
    let reading = reads_numbers(e).filter(|_| exact);
    kids.iter()
        .enumerate()
        .map(|(i, t)| match (reading, metas.get(i)) {
            (Some(r), Some(m))
                if matches!(t, Ty::DateTime | Ty::Time)
                    && as_number(r, *t).is_some()
                    && (1..=6).contains(&m.decimals) =>
            {
                Ty::Dec(m.decimals)
            }
            _ => *t,
        })
        .collect()
}

/// The type an operand of type `t` is read as where `r` reads it: a temporal read as its
/// number is an integer; `None` where it is read as it is.
pub(super) fn as_number(r: Reading, t: Ty) -> Option<Ty> {
    match (r, t) {
        (Reading::Numbers, Ty::Date | Ty::DateTime | Ty::Time) | (Reading::Rounded, Ty::Date) => {
            Some(Ty::Int)
        }
        (Reading::Followed, Ty::Date | Ty::DateTime | Ty::Time) => Some(Ty::Dec(0)),
        _ => None,
    }
}

/// The value of an integer literal from 2^63 to 2^64-1 (a BIGINT UNSIGNED), where `e` is one,
/// as written or as the translation wrote it (its 64 bits, `(-1)`: no identifier is so named).
pub(super) fn unsigned_literal(e: &Expr) -> Option<u64> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) if n.parse::<i64>().is_err() => n.parse().ok(),
            _ => None,
        },
        Expr::Identifier(i) if i.quote_style.is_none() => i
            .value
            .strip_prefix('(')
            .and_then(|v| v.strip_suffix(')'))
            .and_then(|v| v.parse::<i64>().ok())
            .filter(|v| *v < 0)
            .map(|v| v as u64),
        _ => None,
    }
}

/// The value of a constant BIGINT UNSIGNED written with literals: one past 2^63, `~n`,
/// `CAST(n AS UNSIGNED)`, in parentheses; `None` for anything else.
fn unsigned_constant(e: &Expr) -> Option<u64> {
    match e {
        Expr::Nested(x) => unsigned_constant(x),
        Expr::UnaryOp {
            op: UnaryOperator::BitwiseNot,
            expr,
        } => literal_int(expr)
            .or_else(|| match expr.as_ref() {
                Expr::Value(v) => match v.value {
                    Value::Boolean(b) => Some(i64::from(b)),
                    _ => None,
                },
                _ => None,
            })
            .map(|n| !(n as u64)),
        Expr::Cast {
            expr, data_type, ..
        } if cast_type(data_type) == Ty::UInt => literal_int(expr).map(|n| n as u64),
        e => unsigned_literal(e),
    }
}

/// Whether an integer operation on `l` and `r` (`+ - * % DIV`) is unsigned, as MySQL's is: where
/// an operand is, for `%` where its dividend is.
pub(super) fn unsigned_result(op: &BinaryOperator, l: Ty, r: Ty) -> bool {
    use BinaryOperator as B;
    match op {
        B::Plus | B::Minus | B::Multiply | B::MyIntegerDivide => l == Ty::UInt || r == Ty::UInt,
        B::Modulo => l == Ty::UInt,
        _ => false,
    }
}

/// The type of a BIGINT UNSIGNED where `e` reads it as its value ([`unsigned_reads`]): an
/// integer, but for a result merged with others (`IF`, `IFNULL`, `COALESCE`, `CASE`,
/// `GREATEST`, `LEAST`), where a signed and an unsigned integer make a DECIMAL, as in MySQL
/// (`IF(c, 1, ~0)`).
pub(super) fn unsigned_value(e: &Expr) -> Ty {
    let merges = match e {
        Expr::Case { .. } => true,
        Expr::Function(f) => matches!(
            f.name.to_string().to_ascii_uppercase().as_str(),
            "IF" | "IFNULL" | "COALESCE" | "GREATEST" | "LEAST"
        ),
        _ => false,
    };
    if merges {
        Ty::Dec(0)
    } else {
        Ty::Int
    }
}

/// Which of `e`'s operands (its [`children`], of types `kids`) it reads as 64 bits, where one
/// is a BIGINT UNSIGNED ([`Ty::UInt`]): the bit operations and `BIT_AND`/`BIT_OR`/`BIT_XOR`/
/// `BIT_COUNT`, a cast to an integer (`CAST(~0 AS SIGNED)` is -1), integer arithmetic and
/// comparisons of integers (each exact by its operands' signedness), `MIN`/`MAX`, a result
/// merged with others of its type (`IF`, `IFNULL`, `COALESCE`, `CASE`), and what leaves an
/// integer as it is (`FLOOR`, `CEIL`, `ABS`, `ROUND`/`TRUNCATE` to no fewer digits, `+x`,
/// parentheses, `NULLIF` of integers). One rule per consumer, where SQLite would read the bits
/// as a signed `i64`; every other consumer reads the value (an integer below 2^63, else its
/// digits).
pub(super) fn unsigned_reads(e: &Expr, kids: &[Ty]) -> Vec<bool> {
    use BinaryOperator as B;
    let integers = |ks: &[Ty]| ks.iter().all(|t| matches!(t, Ty::Int | Ty::UInt));
    // A merged result keeps its bits where every result is unsigned (or NULL, in `IF` alone:
    // MariaDB's `IFNULL`, `COALESCE` and `CASE` make a DECIMAL of one beside a NULL).
    let merged = |at: &[usize], nulls: bool| {
        let all = at.iter().all(|k| match kids.get(*k) {
            Some(Ty::UInt) => true,
            Some(Ty::Null) => nulls,
            _ => false,
        });
        (0..kids.len()).map(|k| all && at.contains(&k)).collect()
    };
    let all = |b: bool| vec![b; kids.len()];
    match e {
        Expr::Nested(_) => all(true),
        Expr::UnaryOp { op, .. } => all(matches!(
            op,
            UnaryOperator::BitwiseNot | UnaryOperator::Plus
        )),
        Expr::BinaryOp { op, .. } => all(match op {
            B::BitwiseOr
            | B::BitwiseAnd
            | B::BitwiseXor
            | B::PGBitwiseShiftLeft
            | B::PGBitwiseShiftRight => true,
            B::Plus
            | B::Minus
            | B::Multiply
            | B::Modulo
            | B::MyIntegerDivide
            | B::Eq
            | B::NotEq
            | B::Lt
            | B::LtEq
            | B::Gt
            | B::GtEq
            | B::Spaceship => integers(kids),
            _ => false,
        }),
        Expr::In {
            target: InTarget::List(_),
            ..
        }
        | Expr::Between { .. } => all(integers(kids)),
        Expr::Cast { data_type, .. } => all(matches!(cast_type(data_type), Ty::Int | Ty::UInt)),
        Expr::Convert {
            data_type: Some(t), ..
        } => all(matches!(cast_type(t), Ty::Int | Ty::UInt)),
        Expr::Ceil { field, .. } | Expr::Floor { field, .. } => all(plain_rounding(field)),
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => merged(
            &case_results(operand.is_some(), conditions.len(), else_result.is_some())
                .collect::<Vec<_>>(),
            false,
        ),
        Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_uppercase();
            let n = kids.len();
            match name.as_str() {
                "BIT_AND" | "BIT_OR" | "BIT_XOR" | "BIT_COUNT" | "MIN" | "MAX" => all(true),
                // The digits of its 64 bits; the members a set's bits choose.
                "HEX" | "BIN" | "OCT" => all(true),
                "MAKE_SET" | "EXPORT_SET" => (0..n).map(|k| k == 0).collect(),
                // `MOD(a, b)` is `a % b`.
                "MOD" => all(n == 2 && integers(kids)),
                // Compared by exact values (`=`'s rule), the first returned as it is.
                "NULLIF" => all(n == 2 && integers(kids)),
                "FLOOR" | "CEIL" | "CEILING" | "ABS" => all(n == 1),
                // To no fewer digits than it has: itself.
                "ROUND" | "TRUNCATE" => match &f.args {
                    FunctionArguments::List(list) => {
                        let keeps = n == 1
                            || list
                                .args
                                .get(1)
                                .and_then(literal_arg)
                                .is_some_and(|d| d >= 0);
                        (0..n).map(|k| k == 0 && keeps).collect()
                    }
                    _ => all(false),
                },
                "IF" if n == 3 => merged(&[1, 2], true),
                "IFNULL" | "COALESCE" | "GREATEST" | "LEAST" => {
                    merged(&(0..n).collect::<Vec<_>>(), false)
                }
                _ => all(false),
            }
        }
        _ => all(false),
    }
}

/// The one list of [`children`], for a shared or a mutable expression (`mut`).
macro_rules! children_of {
    ($e:expr $(, $m:ident)?) => {
        match $e {
            Expr::Nested(x)
            | Expr::Collate { expr: x, .. }
            | Expr::UnaryOp { expr: x, .. }
            | Expr::IsNull(x)
            | Expr::IsNotNull(x)
            | Expr::IsTrue(x)
            | Expr::IsNotTrue(x)
            | Expr::IsFalse(x)
            | Expr::IsNotFalse(x)
            | Expr::Cast { expr: x, .. }
            | Expr::Extract { expr: x, .. } => vec![&$($m)? **x],
            Expr::Convert { expr, styles, .. } if styles.is_empty() => vec![&$($m)? **expr],
            Expr::Ceil { expr, field } | Expr::Floor { expr, field } if plain_rounding(field) => {
                vec![&$($m)? **expr]
            }
            Expr::BinaryOp { left, right, .. } => vec![&$($m)? **left, &$($m)? **right],
            Expr::Position { expr, r#in } => vec![&$($m)? **expr, &$($m)? **r#in],
            Expr::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => std::iter::once(&$($m)? **expr)
                .chain(substring_from.into_iter().map(|x| &$($m)? **x))
                .chain(substring_for.into_iter().map(|x| &$($m)? **x))
                .collect(),
            Expr::Trim {
                trim_what, expr, ..
            } => trim_what
                .into_iter()
                .map(|x| &$($m)? **x)
                .chain(std::iter::once(&$($m)? **expr))
                .collect(),
            Expr::In {
                expr,
                target: InTarget::List(list),
                ..
            } => std::iter::once(&$($m)? **expr).chain(list).collect(),
            Expr::Between {
                expr, low, high, ..
            } => vec![&$($m)? **expr, &$($m)? **low, &$($m)? **high],
            Expr::Like { expr, pattern, .. } | Expr::RLike { expr, pattern, .. } => {
                vec![&$($m)? **expr, &$($m)? **pattern]
            }
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => operand
                .into_iter()
                .map(|x| &$($m)? **x)
                .chain(
                    conditions
                        .into_iter()
                        .flat_map(|c| [&$($m)? c.condition, &$($m)? c.result]),
                )
                .chain(else_result.into_iter().map(|x| &$($m)? **x))
                .collect(),
            // Its arguments, which the visitor meets before a `GROUP_CONCAT`'s clauses, a
            // `FILTER` or an `OVER` (whose expressions follow them among the types met).
            Expr::Function(f) => match &$($m)? f.args {
                FunctionArguments::List(list) => (&$($m)? list.args)
                    .into_iter()
                    .filter_map(|a| match a {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Some(x),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    };
}

/// The expressions an expression's type is made of, in the order sqlparser's visitor meets
/// them (the translation types each node as it leaves it, from its children's types). A
/// subquery's are its own query's, typed apart.
pub(super) fn children(e: &Expr) -> Vec<&Expr> {
    children_of!(e)
}

/// [`children`], to rewrite in place (the translation wraps an operand in a conversion).
pub(super) fn children_mut(e: &mut Expr) -> Vec<&mut Expr> {
    children_of!(e, mut)
}

/// How MySQL brings a comparison's operands to one type ("Type Conversion in Expression
/// Evaluation"), where SQLite's own rules (its affinities, which compare a number with a
/// string as text unless one side is a bare column) would differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coercion {
    /// A number with a string: both as doubles (the string's leading number).
    Double,
    /// A DATE or DATETIME with a string, a number or the other: both as DATETIMEs.
    DateTime,
    /// A TIME with a string: both as TIMEs.
    Time,
    /// A binary string with a string: byte by byte, no collation.
    Bytes,
}

/// What kind of value a type compares as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Number,
    String,
    Binary,
    Temporal,
    Time,
}

fn kind(t: Ty) -> Option<Kind> {
    Some(match t {
        Ty::Int | Ty::UInt | Ty::Dec(_) | Ty::Double => Kind::Number,
        Ty::Text => Kind::String,
        Ty::Binary => Kind::Binary,
        Ty::Date | Ty::DateTime => Kind::Temporal,
        Ty::Time => Kind::Time,
        Ty::Null | Ty::Other => return None,
    })
}

/// The one rule for every comparison (`=`, `<>`, `<`, `<=`, `>`, `>=`, `<=>`, `IN (…)`,
/// `BETWEEN`, a `CASE`'s operand and its `WHEN` values, `GREATEST`/`LEAST`): from the kinds
/// of its operands' types, how they are brought to one. `None`: SQLite compares them as MySQL
/// does already (numbers with numbers, strings with strings by their collation, temporals of
/// one type), or an operand's type is not known (then nothing is changed). A NULL operand
/// takes no part.
pub fn comparison(types: &[Ty]) -> Option<Coercion> {
    if types.contains(&Ty::Other) {
        return None;
    }
    let kinds: Vec<Kind> = types.iter().filter_map(|t| kind(*t)).collect();
    let has = |k: Kind| kinds.contains(&k);
    let only = |allowed: &[Kind]| kinds.iter().all(|k| allowed.contains(k));
    let first = kinds.first()?;
    if kinds.iter().all(|k| k == first) {
        // One kind: a DATE with a DATETIME differs, and TIMEs compare by value (as text,
        // `100:00:00` sorts before `12:00:00`).
        let mixed =
            *first == Kind::Temporal && types.contains(&Ty::Date) && types.contains(&Ty::DateTime);
        return match first {
            Kind::Time => Some(Coercion::Time),
            _ => mixed.then_some(Coercion::DateTime),
        };
    }
    use Kind as K;
    // A TIME with a DATE or DATETIME compares as a DATETIME (the TIME today); with strings or
    // numbers as a TIME, each read as one (`TIME '01:00:00' = 10000`).
    if has(K::Temporal) && only(&[K::Temporal, K::String, K::Number, K::Time]) {
        Some(Coercion::DateTime)
    } else if has(K::Time) && only(&[K::Time, K::String, K::Number]) {
        Some(Coercion::Time)
    } else if has(K::Binary) && only(&[K::Binary, K::String]) {
        Some(Coercion::Bytes)
    } else if has(K::Number) && only(&[K::Number, K::String, K::Binary]) {
        Some(Coercion::Double)
    } else {
        None
    }
}

/// The SQLite function that brings an operand of type `t` to `c`'s type (`None`: it is of it
/// already). Registered by `functions` (`mysql_double`, `mysql_bytes`) and `dates`.
pub fn coercer(c: Coercion, t: Ty) -> Option<&'static str> {
    match (c, t) {
        (_, Ty::Null) => None,
        (Coercion::Double, Ty::Text | Ty::Binary) => Some("mysql_double"),
        (Coercion::DateTime, Ty::DateTime) => None,
        (Coercion::DateTime, Ty::Time) => Some("mysql_time_datetime"),
        (Coercion::DateTime, _) => Some("mysql_datetime"),
        // Compared as TIMEs by value (`dates::compared_time_us`), each side's microseconds.
        (Coercion::Time, Ty::UInt) => Some("mysql_time_key_unsigned"),
        (Coercion::Time, Ty::Dec(_)) => Some("mysql_time_key_decimal"),
        (Coercion::Time, _) => Some("mysql_time_key"),
        (Coercion::Bytes, Ty::Text) => Some("mysql_bytes"),
        _ => None,
    }
}

/// A raw table's columns, typed as declared.
fn raw_columns(t: Raw) -> Columns {
    t.columns()
        .iter()
        .map(|(name, ty, declared)| {
            (
                Some(name.to_string()),
                sql_type(*ty),
                Meta::column(declared),
            )
        })
        .collect()
}

/// An `information_schema` table's columns, declared as MariaDB declares them.
fn information_schema_columns(name: &str) -> Option<Columns> {
    use super::information_schema::Type;
    let columns = super::information_schema::table(name)?;
    Some(
        columns
            .iter()
            .map(|c| {
                let ty = match c.ty {
                    Type::Varchar(_) | Type::LongText(_) => Ty::Text,
                    Type::Long(_) | Type::LongLong(_) => Ty::Int,
                    Type::ULong(_) | Type::ULongLong(_) => Ty::UInt,
                    Type::DateTime(_) => Ty::DateTime,
                    Type::Double(..) => Ty::Double,
                };
                (
                    Some(c.name.to_ascii_lowercase()),
                    ty,
                    Meta::of_information_schema(c.ty, c.nullable),
                )
            })
            .collect(),
    )
}

/// A column's type as declared.
fn sql_type(ty: SqlType) -> Ty {
    match ty {
        SqlType::Int | SqlType::BigInt => Ty::Int,
        SqlType::Float => Ty::Double,
        SqlType::Text => Ty::Text,
    }
}

/// A number literal's type: `1` an integer, `1.50` a DECIMAL(3,2), `1e0` a double.
fn number(n: &str) -> Ty {
    if n.contains(['e', 'E']) {
        Ty::Double
    } else if let Some((_, decimals)) = n.split_once('.') {
        dec(decimals.len() as u32)
    } else if n.parse::<i64>().is_err() && n.parse::<u64>().is_ok() {
        // 2^63 to 2^64-1: a BIGINT UNSIGNED, as MySQL reads it.
        Ty::UInt
    } else {
        Ty::Int
    }
}

fn dec(s: u32) -> Ty {
    if s <= MAX_SCALE {
        Ty::Dec(s as u8)
    } else {
        Ty::Other
    }
}

/// The scale of an exact number (an integer's is 0).
fn exact(t: Ty) -> Option<u32> {
    match t {
        Ty::Int | Ty::UInt => Some(0),
        Ty::Dec(s) => Some(s as u32),
        _ => None,
    }
}

fn binary(op: &BinaryOperator, l: Ty, r: Ty) -> Ty {
    use BinaryOperator as B;
    let arithmetic = |f: &dyn Fn(u32, u32) -> Ty| match (l, r) {
        // MySQL types arithmetic on NULL a DOUBLE (it merges and compares as one).
        (Ty::Null, _) | (_, Ty::Null) => Ty::Double,
        // A string in arithmetic is read as a double, and makes the result one.
        (Ty::Text | Ty::Binary, Ty::Int | Ty::Dec(_) | Ty::Double | Ty::Text | Ty::Binary)
        | (Ty::Int | Ty::Dec(_) | Ty::Double, Ty::Text | Ty::Binary) => Ty::Double,
        (Ty::Double, Ty::Int | Ty::Dec(_) | Ty::Double) | (Ty::Int | Ty::Dec(_), Ty::Double) => {
            Ty::Double
        }
        _ => match (exact(l), exact(r)) {
            (Some(a), Some(b)) => f(a, b),
            _ => Ty::Other,
        },
    };
    // Integers make an integer: unsigned where an operand is (`%`: where its dividend is), as
    // MySQL's result is ([`unsigned_result`]).
    let integers = [l, r].iter().all(|t| matches!(t, Ty::Int | Ty::UInt));
    let int_or = |t: Ty| match (integers, unsigned_result(op, l, r)) {
        (true, true) => Ty::UInt,
        (true, false) => Ty::Int,
        _ => t,
    };
    match op {
        B::Plus | B::Minus | B::Modulo => arithmetic(&|a, b| int_or(dec(a.max(b)))),
        B::Multiply => arithmetic(&|a, b| int_or(dec(a + b))),
        B::Divide => arithmetic(&|a, _| dec(a + div_increment())),
        B::MyIntegerDivide if unsigned_result(op, l, r) => Ty::UInt,
        // Bit operations are on 64 unsigned bits, whatever their operands.
        B::BitwiseOr
        | B::BitwiseAnd
        | B::BitwiseXor
        | B::PGBitwiseShiftLeft
        | B::PGBitwiseShiftRight => Ty::UInt,
        B::MyIntegerDivide
        | B::Gt
        | B::Lt
        | B::GtEq
        | B::LtEq
        | B::Spaceship
        | B::Eq
        | B::NotEq
        | B::And
        | B::Or
        | B::Xor
        | B::Regexp => Ty::Int,
        // `||`: `OR`, or `CONCAT` under `PIPES_AS_CONCAT`.
        B::StringConcat if pipes_as_concat() => Ty::Text,
        B::StringConcat => Ty::Int,
        _ => Ty::Other,
    }
}

/// Where a CASE's results are among its children ([`children`]): each WHEN's THEN, then the
/// ELSE.
pub(super) fn case_results(
    operand: bool,
    whens: usize,
    otherwise: bool,
) -> impl Iterator<Item = usize> {
    let first = usize::from(operand);
    (0..whens)
        .map(move |c| first + 2 * c + 1)
        .chain(otherwise.then_some(first + 2 * whens))
}

/// The type of `GREATEST`/`LEAST` over arguments of types `args` where a DATE or DATETIME is
/// among numbers or strings (MariaDB's `Type_handler_hybrid_field_type` for them): the
/// temporal's, a DATETIME where one is; a TIME among numbers or strings, a TIME. `None` where
/// no such mix is met (a TIME with a DATE, a binary string or an unknown type among them, or
/// temporals alone).
pub(super) fn temporal_greatest(args: &[Ty]) -> Option<Ty> {
    let temporal = |t: &Ty| matches!(t, Ty::Date | Ty::DateTime);
    let other = |t: &Ty| matches!(t, Ty::Int | Ty::UInt | Ty::Dec(_) | Ty::Double | Ty::Text);
    if args.contains(&Ty::Time) {
        let with = args.iter().any(other)
            && args
                .iter()
                .all(|t| matches!(t, Ty::Time | Ty::Null) || other(t));
        return with.then_some(Ty::Time);
    }
    if !args.iter().any(temporal)
        || !args.iter().any(other)
        || !args
            .iter()
            .all(|t| temporal(t) || other(t) || *t == Ty::Null)
    {
        return None;
    }
    Some(if args.contains(&Ty::DateTime) {
        Ty::DateTime
    } else {
        Ty::Date
    })
}

/// The type of `IF`/`IFNULL`/`COALESCE`/`CASE`/`UNION` over results of types `a` and `b`: a
/// string beside a number or a temporal makes the result a string, as in MySQL (`translate`
/// writes the others' values as MySQL writes them as text: [`as_text`]).
/// A temporal beside a number makes a string too; a DATE beside a DATETIME a DATETIME
/// (`translate` writes the DATE's value as one).
fn merge(a: Ty, b: Ty) -> Ty {
    let temporal = |t: Ty| matches!(t, Ty::Date | Ty::DateTime | Ty::Time);
    let number = |t: Ty| matches!(t, Ty::Int | Ty::UInt | Ty::Dec(_) | Ty::Double);
    match (a, b) {
        (Ty::Null, t) | (t, Ty::Null) => t,
        (Ty::Text, t) | (t, Ty::Text) if t != Ty::Other && t != Ty::Binary => Ty::Text,
        (a, b) if (temporal(a) && number(b)) || (number(a) && temporal(b)) => Ty::Text,
        (Ty::Date, Ty::DateTime) | (Ty::DateTime, Ty::Date) => Ty::DateTime,
        // A TIME beside a DATE or DATETIME: a DATETIME, the TIME's today at it (MariaDB's).
        (Ty::Time, Ty::Date | Ty::DateTime) | (Ty::Date | Ty::DateTime, Ty::Time) => Ty::DateTime,
        (a, b) if a == b && !matches!(a, Ty::Dec(_)) => a,
        // A signed and an unsigned integer: a DECIMAL, which holds both.
        (Ty::Int, Ty::UInt) | (Ty::UInt, Ty::Int) => Ty::Dec(0),
        (Ty::Int, Ty::Int) => Ty::Int,
        (Ty::Double, Ty::Int | Ty::Dec(_) | Ty::Double) | (Ty::Int | Ty::Dec(_), Ty::Double) => {
            Ty::Double
        }
        (Ty::Text, Ty::Text) => Ty::Text,
        _ => match (exact(a), exact(b)) {
            (Some(x), Some(y)) => dec(x.max(y)),
            _ => Ty::Other,
        },
    }
}

/// `e`, of type `t`, written as MySQL writes such a value as a string, where SQLite writes it
/// otherwise: a DOUBLE's `1e20` (not `1.0e+20`), with its `fixed` decimals where it has them
/// (`ROUND(x, 2)`'s `1.50`, `PI()`'s `3.141593`), a FLOAT's six digits (`1.424`), a DECIMAL's
/// scale (`1.50`); `None` where SQLite's text is MySQL's (an integer, a temporal, a string).
pub(super) fn as_text(t: Ty, fixed: Option<Declared>, e: &str) -> Option<String> {
    match t {
        Ty::Double => Some(match fixed {
            Some(Declared::Double(d)) => format!("mysql_fixed_double_text({e}, {d})"),
            Some(Declared::Float) => format!("mysql_float_text({e})"),
            _ => format!("mysql_double_text({e})"),
        }),
        Ty::Dec(s) => Some(format!("mysql_decimal_text({e}, {s})")),
        _ => None,
    }
}

/// The type of a date of type `t` moved by `interval` (`d + INTERVAL n UNIT`, `DATE_ADD`): a
/// DATETIME stays one; a DATE moved by days or longer stays one, by a shorter unit becomes a
/// DATETIME, as in MySQL; anything else is not followed here.
fn moved(t: Ty, interval: &Expr) -> Ty {
    use sqlparser::ast::DateTimeField as F;
    match (t, interval) {
        (Ty::DateTime, _) => Ty::DateTime,
        // A string, a number or NULL moved is a string, as in MySQL (its value read as a
        // DATE or DATETIME, the result written as one).
        (Ty::Text | Ty::Null | Ty::Int | Ty::UInt | Ty::Dec(_) | Ty::Double, _) => Ty::Text,
        // MariaDB's: a TIME moved by a day or less (compounds but YEAR_MONTH) stays one, by
        // weeks or months is a DATETIME (NULL: a time has no day to count from).
        (Ty::Time, Expr::Interval(i)) => match moves_a_time(i) {
            Some(true) => Ty::Time,
            Some(false) => Ty::DateTime,
            None => Ty::Other,
        },
        (Ty::Date, Expr::Interval(i)) if i.last_field.is_none() => match &i.leading_field {
            Some(F::Day | F::Week(_) | F::Month | F::Quarter | F::Year) => Ty::Date,
            Some(F::Hour | F::Minute | F::Second | F::Microsecond) => Ty::DateTime,
            _ => Ty::Other,
        },
        _ => Ty::Other,
    }
}

/// Whether an interval of this unit moves a TIME as a TIME (MariaDB's
/// `Item_date_add_interval::fix_length_and_dec`: `DAY` and the units after it in
/// `interval_type`, `YEAR_MONTH` excepted); `None` for no unit pinbad reads.
pub(super) fn moves_a_time(i: &sqlparser::ast::Interval) -> Option<bool> {
    if i.last_field.is_some() {
        return None;
    }
    let unit = i.leading_field.as_ref()?.to_string().to_ascii_uppercase();
    Some(match unit.as_str() {
        "YEAR" | "QUARTER" | "MONTH" | "WEEK" | "YEAR_MONTH" => false,
        "DAY" | "HOUR" | "MINUTE" | "SECOND" | "MICROSECOND" => true,
        u if u.contains('_') => true,
        _ => return None,
    })
}

/// The type of a value cast to `t` (`CAST(x AS t)`).
pub(super) fn cast_type(t: &DataType) -> Ty {
    use DataType as D;
    match t {
        D::Decimal(info) | D::Numeric(info) | D::Dec(info) => match info {
            ExactNumberInfo::PrecisionAndScale(_, s) => dec((*s).clamp(0, 31) as u32),
            // DECIMAL(p) and DECIMAL have no fraction, and stay DECIMALs (`ROUND(…, 2)` of
            // one has two decimals; of an integer, none).
            _ => dec(0),
        },
        D::Unsigned | D::UnsignedInteger => Ty::UInt,
        D::Signed | D::SignedInteger | D::Int(_) | D::Integer(_) | D::BigInt(_) => Ty::Int,
        D::Double(_) | D::DoublePrecision | D::Float(_) | D::Real => Ty::Double,
        D::Char(_) | D::Varchar(_) | D::Text | D::Nvarchar(_) => Ty::Text,
        D::Binary(_) | D::Varbinary(_) | D::Blob(_) => Ty::Binary,
        D::Date => Ty::Date,
        D::Datetime(_) | D::Timestamp(..) => Ty::DateTime,
        D::Time(..) => Ty::Time,
        _ => Ty::Other,
    }
}

/// Functions by their result's type, where it does not depend on their arguments.
const RESULTS: &[(Ty, &[&str])] = &[
    // `scalars`'s, and those of the statement's own types (`CHARSET`, …) and session.
    (
        Ty::Text,
        &[
            "UUID",
            "CONV",
            "BIN",
            "OCT",
            "TO_BASE64",
            "MAKE_SET",
            "EXPORT_SET",
            "JSON_UNQUOTE",
            "JSON_EXTRACT",
            "CHARSET",
            "COLLATION",
            "GET_FORMAT",
        ],
    ),
    (Ty::Binary, &["CHAR", "UNHEX", "FROM_BASE64"]),
    (
        Ty::Int,
        &[
            "IS_IPV4",
            "IS_IPV6",
            "COERCIBILITY",
            "SLEEP",
            "ROW_COUNT",
            "FOUND_ROWS",
            "INTERVAL",
            "JSON_VALID",
            "GET_LOCK",
            "RELEASE_LOCK",
            "IS_FREE_LOCK",
            "IS_USED_LOCK",
        ],
    ),
    // MySQL's unsigned integers (`CRC32('') - 1` is error 1690, as `~0 + 1` is).
    (
        Ty::UInt,
        &[
            "INET_ATON",
            "CRC32",
            "CONNECTION_ID",
            "LAST_INSERT_ID",
            "RELEASE_ALL_LOCKS",
        ],
    ),
    (
        Ty::DateTime,
        &[
            "NOW",
            "CURRENT_TIMESTAMP",
            "LOCALTIME",
            "LOCALTIMESTAMP",
            "SYSDATE",
            "UTC_TIMESTAMP",
            "TIMESTAMP",
            "CONVERT_TZ",
        ],
    ),
    (
        Ty::Date,
        &[
            "CURDATE",
            "CURRENT_DATE",
            "UTC_DATE",
            "DATE",
            "LAST_DAY",
            "FROM_DAYS",
            "MAKEDATE",
        ],
    ),
    (
        Ty::Time,
        &[
            "CURTIME",
            "CURRENT_TIME",
            "UTC_TIME",
            "TIME",
            "SEC_TO_TIME",
            "MAKETIME",
            "TIMEDIFF",
        ],
    ),
    (
        Ty::Int,
        &[
            "YEAR",
            "MONTH",
            "DAY",
            "DAYOFMONTH",
            "HOUR",
            "MINUTE",
            "SECOND",
            "MICROSECOND",
            "DAYOFWEEK",
            "WEEKDAY",
            "DAYOFYEAR",
            "WEEK",
            "WEEKOFYEAR",
            "QUARTER",
            "TO_DAYS",
            "TO_SECONDS",
            "YEARWEEK",
            "PERIOD_ADD",
            "PERIOD_DIFF",
            "DATEDIFF",
            "TIMESTAMPDIFF",
            "LENGTH",
            "OCTET_LENGTH",
            "CHAR_LENGTH",
            "CHARACTER_LENGTH",
            "BIT_LENGTH",
            "LOCATE",
            "INSTR",
            "POSITION",
            "ASCII",
            "ORD",
            "FIELD",
            "FIND_IN_SET",
            "STRCMP",
            "BIT_COUNT",
            "ISNULL",
        ],
    ),
    (
        Ty::Double,
        &[
            "POW", "POWER", "SQRT", "EXP", "LN", "LOG", "LOG2", "LOG10", "SIN", "COS", "TAN",
            "ASIN", "ACOS", "ATAN", "ATAN2", "COT", "RAND", "PI", "DEGREES", "RADIANS",
        ],
    ),
    // The window functions of a fraction of the rows.
    (Ty::Double, &["PERCENT_RANK", "CUME_DIST"]),
    // A row's number, rank or bucket.
    (Ty::Int, &["ROW_NUMBER", "RANK", "DENSE_RANK", "NTILE"]),
    (
        Ty::Text,
        &[
            "SUBSTRING",
            "SUBSTR",
            "MID",
            "REPLACE",
            "TRIM",
            "LTRIM",
            "RTRIM",
            "DATE_FORMAT",
            "TIME_FORMAT",
            "HEX",
            "MD5",
            "SHA1",
            "SHA",
            "SHA2",
            "FORMAT",
            "REPEAT",
            "SPACE",
            "SUBSTRING_INDEX",
            "GROUP_CONCAT",
            "DAYNAME",
            "MONTHNAME",
            "QUOTE",
            "INSERT",
            "ELT",
            "VERSION",
            "DATABASE",
            "SCHEMA",
            "USER",
            "CURRENT_USER",
            "SESSION_USER",
            "SYSTEM_USER",
            "INET_NTOA",
            "REGEXP_REPLACE",
            "REGEXP_SUBSTR",
        ],
    ),
];

/// `e`'s type `t` where its declaration `m` says more: `FLOOR` and `CEILING` of a DECIMAL of
/// more than 18 whole digits are DECIMALs (MariaDB's `Item_func_int_val`), whose sums stay
/// exact past 64 bits (`CEILING(99999999999999999999.5) + 1`).
pub(super) fn int_val_type(e: &Expr, t: Ty, m: &Meta) -> Ty {
    // (Rounded to an integer: `ROUND` of a DECIMAL is typed one already.)
    let rounded = reads_numbers(e) == Some(Reading::Rounded);
    if rounded && t == Ty::Int && m.code == super::coldef::Code::NewDecimal {
        Ty::Dec(0)
    } else {
        t
    }
}

/// A function's result type from its arguments' (`star`: it was given `*`).
fn function(name: &str, args: &[(&Expr, Ty)], star: bool) -> Ty {
    let arg = |k: usize| args.get(k).map_or(Ty::Other, |a| a.1);
    let one = args.len() == 1 && !star;
    match name {
        "COUNT" => Ty::Int,
        // MariaDB's percentiles (`translate`'s `Percentiles`: the fraction, then the value).
        "PERCENTILE_CONT" => Ty::Double,
        "PERCENTILE_DISC" => arg(1),
        "BIT_OR" | "BIT_AND" | "BIT_XOR" if one => Ty::UInt,
        // The deviations and variances: doubles.
        "STD" | "VARIANCE" | "VAR_POP" | "VAR_SAMP" => Ty::Double,
        _ if name.starts_with("STDDEV") => Ty::Double,
        "SUM" if one => match arg(0) {
            Ty::Int | Ty::Dec(_) => dec(exact(arg(0)).unwrap_or(0)),
            // Of NULL or a string (its leading number), a DOUBLE, as MySQL types it.
            Ty::Double | Ty::Null | Ty::Text | Ty::Binary => Ty::Double,
            _ => Ty::Other,
        },
        "AVG" if one => match exact(arg(0)) {
            Some(s) => dec(s + div_increment()),
            None if matches!(arg(0), Ty::Double | Ty::Null | Ty::Text | Ty::Binary) => Ty::Double,
            None => Ty::Other,
        },
        // Of NULL, a string (MySQL types it so: `IFNULL(MIN(NULL), 0)` is '0').
        "MIN" | "MAX" if one => match arg(0) {
            Ty::Null => Ty::Text,
            t => t,
        },
        // A number function of NULL is a DOUBLE, as MySQL types it.
        "ABS" | "ROUND" | "TRUNCATE" | "FLOOR" | "CEIL" | "CEILING" if arg(0) == Ty::Null => {
            Ty::Double
        }
        // Of a string, its leading number as a DOUBLE.
        "ABS" if one => match arg(0) {
            Ty::Text | Ty::Binary => Ty::Double,
            t => t,
        },
        // An unsigned integer rounded or made positive is itself ([`unsigned_reads`]).
        "FLOOR" | "CEIL" | "CEILING" | "ABS" if one && arg(0) == Ty::UInt => Ty::UInt,
        "FLOOR" | "CEIL" | "CEILING" | "SIGN" if one && exact(arg(0)).is_some() => Ty::Int,
        "SIGN" if one => Ty::Int,
        // A string rounded is read as a DOUBLE.
        "FLOOR" | "CEIL" | "CEILING" if one && arg(0) == Ty::Text => Ty::Double,
        "FLOOR" | "CEIL" | "CEILING" if one && arg(0) == Ty::Double => Ty::Double,
        // A DATETIME or TIME rounded is one ([`Reading::Rounded`]).
        "FLOOR" | "CEIL" | "CEILING" | "ROUND" | "TRUNCATE"
            if matches!(arg(0), Ty::DateTime | Ty::Time) =>
        {
            arg(0)
        }
        "ROUND" | "TRUNCATE" if !args.is_empty() && args.len() <= 2 => match arg(0) {
            t @ (Ty::Int | Ty::UInt) => t,
            Ty::Double => Ty::Double,
            // A DECIMAL of no places (MariaDB's `Item_func_round` keeps it one: `1 * ROUND(1.5)`
            // is a DECIMAL).
            Ty::Dec(_) => match args.get(1) {
                None => Ty::Dec(0),
                Some((d, t)) => match literal_int(d) {
                    Some(d) => dec(d.clamp(0, MAX_SCALE as i64) as u32),
                    // To NULL places: NULL, typed a DOUBLE.
                    None if *t == Ty::Null => Ty::Double,
                    None => Ty::Other,
                },
            },
            // A string (or NULL, of `MIN(NULL)`) rounded is read as a DOUBLE.
            Ty::Text => Ty::Double,
            _ => Ty::Other,
        },
        "IFNULL" | "COALESCE" if !args.is_empty() => {
            args.iter().fold(Ty::Null, |t, a| merge(t, a.1))
        }
        // Compared, not merged: a string beside a number compares (and answers) as a double,
        // and so does anything beside a NULL (MySQL types `GREATEST(1, NULL)` a DOUBLE).
        "GREATEST" | "LEAST" if !args.is_empty() => {
            let number = |t: Ty| matches!(t, Ty::Int | Ty::Dec(_) | Ty::Double);
            // A DATE or DATETIME among numbers and strings: all compared as DATETIMEs, the
            // result of the temporal's type (a DATETIME where one is), as MariaDB types it
            // (`GREATEST(DATE '2024-03-05', '')` is that DATE).
            if let Some(t) = temporal_greatest(&args.iter().map(|a| a.1).collect::<Vec<_>>()) {
                return t;
            }
            // (Of NULLs alone, a NULL: `GREATEST(NULL, NULL)`.)
            if args.iter().any(|a| a.1 == Ty::Null)
                && args.iter().any(|a| number(a.1))
                && args.iter().all(|a| a.1 == Ty::Null || number(a.1))
            {
                return Ty::Double;
            }
            if args.iter().any(|a| a.1 == Ty::Text) && args.iter().any(|a| number(a.1)) {
                return if args.iter().all(|a| a.1 == Ty::Text || number(a.1)) {
                    Ty::Double
                } else {
                    Ty::Other
                };
            }
            args.iter().fold(Ty::Null, |t, a| merge(t, a.1))
        }
        // Of two NULLs, a string (MySQL types it so: `COALESCE(1.5, IF(NULL, NULL, NULL))` is
        // '1.5'); IFNULL, COALESCE and CASE of NULLs stay NULL.
        "IF" if args.len() == 3 => match merge(arg(1), arg(2)) {
            Ty::Null => Ty::Text,
            t => t,
        },
        "MOD" if args.len() == 2 => binary(&BinaryOperator::Modulo, arg(0), arg(1)),
        // A time added to a string is a string, to a DATETIME or TIME one of its type.
        "ADDTIME" | "SUBTIME" if args.len() == 2 => match arg(0) {
            Ty::Text | Ty::Null => Ty::Text,
            t @ (Ty::DateTime | Ty::Time) => t,
            _ => Ty::Other,
        },
        "NULLIF" if args.len() == 2 => arg(0),
        // A window's value of another row: its argument's type.
        "LAG" | "LEAD" | "FIRST_VALUE" | "LAST_VALUE" | "NTH_VALUE" if !args.is_empty() => arg(0),
        // A DATETIME moved by an interval stays one (a DATE or a string may not: not typed).
        "TIMESTAMPADD" if args.len() == 3 && arg(2) == Ty::DateTime => Ty::DateTime,
        // A DATE moved by days or more stays one, by a part of a day becomes a DATETIME.
        "TIMESTAMPADD" if args.len() == 3 && arg(2) == Ty::Date => {
            match args[0].0.to_string().to_ascii_uppercase().as_str() {
                "DAY" | "WEEK" | "MONTH" | "QUARTER" | "YEAR" => Ty::Date,
                "HOUR" | "MINUTE" | "SECOND" | "MICROSECOND" => Ty::DateTime,
                _ => Ty::Other,
            }
        }
        // A TIME moved by a day or less stays one, by weeks or more is a DATETIME, as by
        // `DATE_ADD` ([`moved`]).
        "TIMESTAMPADD" if args.len() == 3 && arg(2) == Ty::Time => {
            match args[0].0.to_string().to_ascii_uppercase().as_str() {
                "DAY" | "HOUR" | "MINUTE" | "SECOND" | "MICROSECOND" => Ty::Time,
                "WEEK" | "MONTH" | "QUARTER" | "YEAR" => Ty::DateTime,
                _ => Ty::Other,
            }
        }
        // A string (or NULL) moved is a string, as `DATE_ADD`'s ([`moved`]).
        "TIMESTAMPADD" if args.len() == 3 && matches!(arg(2), Ty::Text | Ty::Null) => Ty::Text,
        // `ADDDATE(d, n)`, `SUBDATE(d, n)`: moved by days.
        "ADDDATE" | "SUBDATE" if args.len() == 2 && !matches!(args[1].0, Expr::Interval(_)) => {
            match arg(0) {
                // (A TIME moved by days stays one, as by `INTERVAL n DAY`.)
                t @ (Ty::Date | Ty::DateTime | Ty::Time) => t,
                // A string (or NULL) moved is a string ([`moved`]).
                Ty::Text | Ty::Null => Ty::Text,
                _ => Ty::Other,
            }
        }
        "DATE_ADD" | "DATE_SUB" | "ADDDATE" | "SUBDATE" if args.len() == 2 => {
            moved(arg(0), args[1].0)
        }
        // By its format where it is a literal (MySQL's `get_date_time_result_type`), else a
        // DATETIME.
        // (The literal as written, or as the translation collated it: a call is typed again
        // once its arguments are translated.)
        "STR_TO_DATE" if args.len() == 2 => match uncollated(args[1].0) {
            Expr::Value(v) => match &v.value {
                Value::SingleQuotedString(f) | Value::DoubleQuotedString(f) => {
                    match super::dates::format_kind(f).0 {
                        super::dates::Kind::Date => Ty::Date,
                        super::dates::Kind::DateTime => Ty::DateTime,
                        super::dates::Kind::Time => Ty::Time,
                    }
                }
                _ => Ty::DateTime,
            },
            _ => Ty::DateTime,
        },
        "FROM_UNIXTIME" => match args.len() {
            1 => Ty::DateTime,
            _ => Ty::Text,
        },
        "UNIX_TIMESTAMP" if args.len() <= 1 && !matches!(arg(0), Ty::Dec(_) | Ty::Double) => {
            Ty::Int
        }
        _ => RESULTS
            .iter()
            .find(|(_, names)| names.contains(&name))
            .map_or(Ty::Other, |(t, _)| *t),
    }
}

/// `e` without the `COLLATE` the translation puts on a string literal.
fn uncollated(e: &Expr) -> &Expr {
    match e {
        Expr::Collate { expr, .. } => expr,
        e => e,
    }
}

/// A function's argument where it is an integer literal (`ROUND(x, 2)`'s 2).
pub(super) fn literal_arg(a: &FunctionArg) -> Option<i64> {
    match a {
        FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => literal_int(e),
        _ => None,
    }
}

/// An integer literal, negative ones too (`ROUND(x, -1)`).
pub(super) fn literal_int(e: &Expr) -> Option<i64> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        // A literal the translation wrote as its number (`TRUE`, `b'101'`).
        Expr::Identifier(i)
            if i.quote_style.is_none() && i.value.bytes().all(|b| b.is_ascii_digit()) =>
        {
            i.value.parse().ok()
        }
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => literal_int(expr).map(|i| -i),
        Expr::Nested(x) => literal_int(x),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::dialect::MySql;
    use super::*;
    use sqlparser::ast::Statement;
    use sqlparser::parser::Parser;

    #[test]
    fn greatest_of_a_temporal_among_numbers_or_strings_is_the_temporal() {
        assert_eq!(temporal_greatest(&[Ty::Date, Ty::Dec(1)]), Some(Ty::Date));
        assert_eq!(temporal_greatest(&[Ty::Text, Ty::Date]), Some(Ty::Date));
        assert_eq!(
            temporal_greatest(&[Ty::Int, Ty::Date, Ty::DateTime]),
            Some(Ty::DateTime)
        );
        // Temporals alone, a TIME, or nothing temporal: not this rule.
        assert_eq!(temporal_greatest(&[Ty::Date, Ty::DateTime]), None);
        assert_eq!(temporal_greatest(&[Ty::Time, Ty::Int]), Some(Ty::Time));
        assert_eq!(temporal_greatest(&[Ty::Text, Ty::Time]), Some(Ty::Time));
        assert_eq!(temporal_greatest(&[Ty::Time, Ty::Time]), None);
        assert_eq!(temporal_greatest(&[Ty::Date, Ty::Time, Ty::Int]), None);
        assert_eq!(temporal_greatest(&[Ty::Int, Ty::Text]), None);
    }

    /// The typing of `sql`, one MySQL query (nothing where sqlparser does not parse it).
    fn typing(sql: &str) -> Typing {
        match Parser::parse_sql(&MySql, sql).as_deref() {
            Ok([Statement::Query(query)]) => of(query),
            _ => Typing::default(),
        }
    }

    /// Each result column's DECIMAL scale, where it is one.
    fn columns(sql: &str) -> Vec<Option<u8>> {
        typing(sql)
            .columns
            .into_iter()
            .map(|d| match d.and_then(|m| m.declared()) {
                Some(Declared::Decimal(s)) => Some(s),
                _ => None,
            })
            .collect()
    }

    /// A report table's columns are typed as the session's lookup declares them: an average
    /// of its counts is a DECIMAL, a count compared with a string compares as a double.
    #[test]
    fn report_tables_are_typed_by_their_layout() {
        let sql = "SELECT AVG(req_count), req_time FROM report_by_script_name";
        assert_eq!(columns(sql), vec![None, None]);
        let tables = TableColumns::new(|name| {
            (name == "report_by_script_name").then(|| {
                vec![
                    ("req_count".to_string(), SqlType::Int),
                    ("req_time".to_string(), SqlType::Float),
                ]
            })
        });
        assert_eq!(with_tables(&tables, || columns(sql)), vec![Some(4), None]);
        let query = |sql: &str| match Parser::parse_sql(&MySql, sql).unwrap().pop() {
            Some(Statement::Query(q)) => q,
            _ => unreachable!(),
        };
        let q = query("SELECT 1 FROM report_by_script_name");
        let SetExpr::Select(select) = q.body.as_ref() else {
            unreachable!()
        };
        let scope = with_tables(&tables, || Scope::of_select(select, &Vec::new()));
        assert_eq!(scope.column("REQ_COUNT"), Ty::Int);
        assert_eq!(scope.column("req_time"), Ty::Double);
        assert_eq!(
            comparison(&[scope.column("req_count"), Ty::Text]),
            Some(Coercion::Double)
        );
    }

    /// The type of `SELECT expr`'s column.
    fn ty(expr: &str) -> Ty {
        let sql = format!("SELECT {expr}");
        let parsed = Parser::parse_sql(&MySql, &sql);
        let Ok([Statement::Query(q)]) = parsed.as_deref() else {
            unreachable!("{sql}")
        };
        match query_columns(q, &Vec::new(), &mut Found::default()).as_deref() {
            Some([(_, t, _)]) => *t,
            _ => Ty::Other,
        }
    }

    /// A BIGINT UNSIGNED's producers make one; its consumers read its bits where MySQL's do,
    /// else its value (an integer, a DECIMAL where merged with a signed integer), as MariaDB
    /// 10.11 types them.
    #[test]
    fn unsigned_integers_are_typed_by_one_rule_per_operator() {
        let cases: &[(&str, Ty)] = &[
            ("18446744073709551615", Ty::UInt),
            ("9223372036854775807", Ty::Int),
            ("CAST(-1 AS UNSIGNED)", Ty::UInt),
            ("~0", Ty::UInt),
            ("1 | 2", Ty::UInt),
            ("1 << 2", Ty::UInt),
            ("0x41 + 0", Ty::UInt),
            ("~0 + 1", Ty::UInt),
            ("1 - CAST(1 AS UNSIGNED)", Ty::UInt),
            ("-5 % CAST(3 AS UNSIGNED)", Ty::Int),
            ("CAST(5 AS UNSIGNED) % -3", Ty::UInt),
            ("7 DIV CAST(2 AS UNSIGNED)", Ty::UInt),
            ("~0 + 0.5", Ty::Dec(1)),
            ("~0 / 2", Ty::Dec(4)),
            ("~0 + 1e0", Ty::Double),
            ("CAST(~0 AS SIGNED)", Ty::Int),
            ("~0 > 5", Ty::Int),
            ("-CAST(1 AS UNSIGNED)", Ty::Int),
            ("-9223372036854775808", Ty::Int),
            ("-18446744073709551615", Ty::Dec(0)),
            ("MOD(~0, 2)", Ty::UInt),
            ("GREATEST(~0, ~1)", Ty::UInt),
            ("GREATEST(~0, 1)", Ty::Dec(0)),
            ("IFNULL(~0, NULL)", Ty::Dec(0)),
            ("IF(1, ~0, NULL)", Ty::UInt),
            ("IF(1, ~0, ~1)", Ty::UInt),
            ("IF(1, ~0, 1)", Ty::Dec(0)),
            ("COALESCE(NULL, ~0)", Ty::Dec(0)),
            ("COALESCE(~1, ~0)", Ty::UInt),
            ("FLOOR(~0)", Ty::UInt),
            ("ROUND(~0, 2)", Ty::UInt),
            ("ROUND(1.5)", Ty::Dec(0)),
            ("1 * ROUND(1.5)", Ty::Dec(0)),
            ("MAX(~0)", Ty::UInt),
            ("BIT_OR(NULL)", Ty::UInt),
            ("BIT_COUNT(~0)", Ty::Int),
            ("SUM(~0)", Ty::Dec(0)),
            ("CONCAT(~0)", Ty::Text),
        ];
        for (expr, t) in cases {
            assert_eq!(ty(expr), *t, "{expr}");
        }
        // Which operands are read as bits.
        let reads = |expr: &str, kids: &[Ty]| {
            let parsed = Parser::parse_sql(&MySql, &format!("SELECT {expr}"));
            let Ok([Statement::Query(q)]) = parsed.as_deref() else {
                unreachable!()
            };
            let SetExpr::Select(s) = q.body.as_ref() else {
                unreachable!()
            };
            let SelectItem::UnnamedExpr(e) = &s.projection[0] else {
                unreachable!()
            };
            unsigned_reads(e, kids)
        };
        assert_eq!(reads("a + b", &[Ty::UInt, Ty::Int]), [true, true]);
        assert_eq!(reads("a + b", &[Ty::UInt, Ty::Double]), [false, false]);
        assert_eq!(
            reads("a IN (b, c)", &[Ty::UInt, Ty::Int, Ty::Text]),
            [false; 3]
        );
        assert_eq!(
            reads("IF(a, b, c)", &[Ty::Int, Ty::UInt, Ty::Null]),
            [false, true, true]
        );
        assert_eq!(reads("SUM(a)", &[Ty::UInt]), [false]);
        assert_eq!(reads("-a", &[Ty::UInt]), [false]);
        assert_eq!(reads("ROUND(a, -1)", &[Ty::UInt, Ty::Int]), [false, false]);
    }

    #[test]
    fn decimals_follow_mysqls_scales() {
        // Each as MariaDB 10.11 types it (tests/mariadb/corpus.sql checks the answers).
        let cases: &[(&str, Option<u8>)] = &[
            ("7 / 2", Some(4)),
            ("1.50 / 3", Some(6)),
            ("1.50 * 2.5", Some(3)),
            ("1.5 + 2", Some(1)),
            ("7 DIV 2", None),
            ("7 % 2", None),
            ("7.0 % 2", Some(1)),
            ("ROUND(7 / 3, 2)", Some(2)),
            ("ROUND(1.5, 3)", Some(3)),
            ("ROUND(100, 2)", None),
            ("ROUND(7 / 2, -1)", Some(0)),
            ("TRUNCATE(7 / 3, 1)", Some(1)),
            ("IFNULL(NULL, 7 / 2)", Some(4)),
            ("COALESCE(1, 2.50)", Some(2)),
            ("CASE WHEN 1 THEN 1 ELSE 2.5 END", Some(1)),
            ("IF(1, 7 / 2, 1)", Some(4)),
            ("NULLIF(7 / 2, 1)", Some(4)),
            ("CAST(1 AS DECIMAL(5, 2))", Some(2)),
            ("-7 / 2", Some(4)),
            ("2e0 / 4", None),
            ("ABS(-7 / 2)", Some(4)),
            ("FLOOR(7 / 2)", None),
            ("(SELECT 7 / 2)", Some(4)),
            ("7 / 2 > 3", None),
            ("7 / 2 * 1", Some(4)),
            ("100 / 7 / 3", Some(8)),
            ("MOD(7.5, 2)", Some(1)),
            ("'a'", None),
        ];
        for (expr, want) in cases {
            // Nothing typed (no scale could come of it) is no DECIMAL.
            let got = columns(&format!("SELECT {expr}"));
            assert_eq!(got.first().copied().flatten(), *want, "{expr}");
            assert!(got.len() <= 1, "{expr}");
        }
        assert_eq!(
            columns("SELECT AVG(status), SUM(status), AVG(req_time), COUNT(*) / 7 FROM request"),
            vec![Some(4), Some(0), None, Some(4)]
        );
        assert_eq!(
            columns(
                "SELECT ROUND(100 * SUM(status >= 500) / NULLIF(COUNT(*), 0), 2) AS ratio \
                 FROM pinba.request WHERE status > 0"
            ),
            vec![Some(2)]
        );
        assert_eq!(columns("SELECT 1 UNION SELECT 2.5"), vec![Some(1)]);
    }

    /// Columns are declared as MariaDB 10.11 declares them (its answers, read with PyMySQL):
    /// type code, length and decimals.
    /// Each column's type code, length and UNSIGNED flag, as MariaDB 10.11 declared them (read
    /// from its answers: `tests/mariadb`).
    fn codes(sql: &str) -> Vec<(super::super::coldef::Code, u32, bool)> {
        typing(sql)
            .columns
            .into_iter()
            .map(|m| {
                m.map_or((super::super::coldef::Code::ByValue, 0, false), |m| {
                    (m.code, m.length, m.unsigned)
                })
            })
            .collect()
    }

    #[test]
    fn integers_computed_are_declared_by_their_operands_digits_and_signs() {
        use super::super::coldef::Code::{Long, LongLong, NewDecimal};
        // Bit-value and hexadecimal literals are unsigned numbers of their bytes' digits; a sum
        // or product is unsigned where an operand is, `%` where its dividend is; a cast to
        // SIGNED has its operand's digits; `||` is OR.
        assert_eq!(
            codes(
                "SELECT b'1' + 0, 0x41 + 0, 0x4142434445 + 0, 0x41 * 2, b'101' % 2, -0x41, \
                 0x41 DIV 2, CAST(1 AS UNSIGNED) + 0, CAST(5 AS UNSIGNED) % 3, 1 || 0, \
                 CAST(1e0 AS SIGNED) + 0, CAST(1e0 AS SIGNED) % 5, CAST(1.5 AS SIGNED) + 0, \
                 CAST(NOW(3) AS SIGNED) + 0, CAST(TIME '10:00:00' AS SIGNED) + 0"
            ),
            vec![
                (Long, 4, true),
                (Long, 4, true),
                (LongLong, 14, true),
                (Long, 4, true),
                (Long, 3, true),
                (Long, 2, false),
                (Long, 3, true),
                (Long, 2, true),
                (Long, 1, true),
                (Long, 1, false),
                (Long, 5, false),
                (Long, 4, false),
                (Long, 4, false),
                (LongLong, 19, false),
                (Long, 9, false),
            ]
        );
        // Rounding: a LONGLONG to tens is a DECIMAL, a LONG one digit longer; a `MIN`/`MAX` of
        // a computed integer is rounded as its own type, a truth's as a LONG.
        assert_eq!(
            codes(
                "SELECT ROUND(MIN(1)), ROUND(MIN(1), -1), ROUND(status, -1), \
                 ROUND(2147483647, -1), ROUND(MOD(status, 5), -1), MAX(1 < 2), \
                 FLOOR(MIN(1)), ROUND(12, -1) FROM request"
            )
            .into_iter()
            .map(|c| (c.0, c.1))
            .collect::<Vec<_>>(),
            vec![
                (Long, 1),
                (Long, 2),
                (LongLong, 12),
                (NewDecimal, 11),
                (NewDecimal, 12),
                (Long, 1),
                (Long, 1),
                (Long, 3),
            ]
        );
    }

    /// A negated constant read as a negative LONGLONG is a DECIMAL (`Item_func_neg`), found by
    /// its value through dates, `STRCMP` and `IFNULL`; a collated number is a string; `UNHEX`
    /// of a LONG_BLOB of characters reads its bytes as MariaDB holds them (a quarter of the
    /// length sent), a binary string past 64 KiB a MEDIUM_BLOB; `TIME_TO_SEC` of a collated
    /// literal reads the literal.
    #[test]
    fn constants_collations_and_binary_lengths_are_declared_as_mariadb_does() {
        use super::super::coldef::Code::{LongLong, MediumBlob, NewDecimal, VarString};
        let code = |sql: &str| codes(sql)[0];
        assert_eq!(code("SELECT -(3 - DATE '9999-12-31')").0, NewDecimal);
        assert_eq!(code("SELECT -STRCMP('', 'a')").0, NewDecimal);
        assert_eq!(code("SELECT -IFNULL(-2, 5)").0, NewDecimal);
        assert_ne!(code("SELECT -IFNULL(2, 5)").0, NewDecimal);
        assert_ne!(code("SELECT -(3 - 1)").0, NewDecimal);
        assert_eq!(code("SELECT 1 COLLATE utf8mb4_bin").0, VarString);
        assert_eq!(
            code("SELECT UNHEX(REGEXP_REPLACE('', 'a', ''))"),
            (MediumBlob, 8_388_608, false)
        );
        assert_eq!(code("SELECT UNHEX(REPEAT('ab', 100000))").0, MediumBlob);
        assert_eq!(
            code("SELECT TIME_TO_SEC('' COLLATE utf8mb4_unicode_ci)").0,
            NewDecimal
        );
        assert_eq!(
            code("SELECT TIME_TO_SEC('1' COLLATE utf8mb4_bin)"),
            (LongLong, 17, false)
        );
    }

    #[test]
    fn strings_are_declared_by_their_length_and_where_rows_are_grouped() {
        use super::super::coldef::Code::{Blob, MediumBlob, String, VarString};
        let code = |sql: &str, k: usize| codes(sql)[k].0;
        // `MIN(NULL)` is a binary CHAR(0) where a temporary table groups the rows: not where
        // the groups are constants, an aggregate takes DISTINCT, or no row is read.
        assert_eq!(
            code("SELECT status, MIN(NULL) FROM request GROUP BY 1", 1),
            String
        );
        assert_eq!(code("SELECT MIN(NULL) FROM request", 0), VarString);
        assert_eq!(
            code("SELECT 1, MIN(NULL) FROM request GROUP BY 1", 1),
            VarString
        );
        assert_eq!(
            code(
                "SELECT status, MIN(NULL), COUNT(DISTINCT 1) FROM request GROUP BY 1",
                1
            ),
            VarString
        );
        assert_eq!(
            code(
                "SELECT status, MAX(NULL) FROM request WHERE NULL GROUP BY 1",
                1
            ),
            VarString
        );
        // Past 64 KiB a MEDIUM_BLOB; `GROUP_CONCAT` a BLOB, or a VARCHAR of up to 512
        // characters (`group_concat_max_len`).
        assert_eq!(code("SELECT REPEAT('ab', 8000)", 0), VarString);
        assert_eq!(code("SELECT REPEAT('ab', 9000)", 0), MediumBlob);
        assert_eq!(
            code("SELECT GROUP_CONCAT(script_name) FROM request", 0),
            Blob
        );
        assert_eq!(
            code(
                "SELECT CONCAT(GROUP_CONCAT(script_name), '') FROM request",
                0
            ),
            MediumBlob
        );
        let short = Rules {
            group_concat_max_len: 4,
            ..Rules::default()
        };
        let declared = with_rules(short, || codes("SELECT GROUP_CONCAT('abc', 'def')"));
        assert_eq!(declared, vec![(VarString, 16, false)]);
    }

    #[test]
    fn doubles_are_as_long_as_their_functions_class_says() {
        let lengths = |sql: &str| -> Vec<(u32, u8)> {
            typing(sql)
                .columns
                .into_iter()
                .map(|m| m.map_or((0, 0), |m| (m.length, m.decimals)))
                .collect()
        };
        // `float_length` (ABS, MIN/MAX, GREATEST) against `count_real_length` (IFNULL, COALESCE).
        assert_eq!(
            lengths("SELECT ABS(1e0), ABS(NULL), GREATEST(1e0, 1), IFNULL(1, 1e0), COALESCE(0.0, 1e0), COALESCE(CRC32('a'), 1e0), COALESCE(ABS(NULL), 1e0)"),
            vec![(23, 31), (17, 0), (23, 31), (3, 31), (4, 31), (10, 31), (17, 31)]
        );
        assert_eq!(lengths("SELECT MIN(1e0) FROM request"), vec![(23, 31)]);
        // FLOOR of a DECIMAL: the integer digits written, one more for a fraction.
        assert_eq!(
            lengths("SELECT FLOOR(0.5), FLOOR(.5), FLOOR(CAST(1 AS DECIMAL(5,0)))"),
            vec![(3, 0), (2, 0), (6, 0)]
        );
    }

    #[test]
    fn unsigned_casts_keep_the_length_of_what_is_never_negative() {
        use super::super::coldef::Code;
        let declared = |sql: &str| -> Vec<(Code, u32)> {
            typing(sql)
                .columns
                .into_iter()
                .map(|m| m.map_or((Code::ByValue, 0), |m| (m.code, m.length)))
                .collect()
        };
        assert_eq!(
            declared("SELECT CAST(2147483647 AS UNSIGNED), CAST(1 + 1 AS UNSIGNED), CAST(SECOND(NULL) AS UNSIGNED), CAST(WEEKDAY(NULL) AS UNSIGNED)"),
            vec![(Code::Long, 10), (Code::LongLong, 20), (Code::Long, 2), (Code::LongLong, 20)]
        );
    }

    #[test]
    fn flags_follow_nullability_collation_and_where_rows_come_from() {
        let flags = |sql: &str| -> Vec<(bool, bool)> {
            typing(sql)
                .columns
                .into_iter()
                .map(|m| m.map_or((false, false), |m| (m.binary_flag(), m.nullable)))
                .collect()
        };
        assert_eq!(
            flags("SELECT ROUND(1, NULL), POSITION('' IN NULL), POSITION('a' IN 'b'), FIELD(NULL, 1), JSON_UNQUOTE('1')"),
            vec![(true, true), (true, true), (true, false), (true, false), (true, true)]
        );
        // Sorted again after grouping by sorting: a temporary table's column (no BINARY).
        let sorted = "SELECT status, COUNT(DISTINCT id) FROM request GROUP BY 1 ORDER BY 2";
        assert_eq!(flags(sorted)[1], (false, false));
        let in_order = "SELECT status, COUNT(DISTINCT id) FROM request GROUP BY 1 ORDER BY 1";
        assert_eq!(flags(in_order)[1], (true, false));
        // An impossible WHERE reads no row: the items' own flags.
        for sql in [
            "SELECT status, COUNT(*) FROM request WHERE '' GROUP BY 1",
            "SELECT status, COUNT(*) FROM request WHERE 1.5 = 0.25 GROUP BY 1",
            "SELECT status, COUNT(*) FROM request WHERE TIME '00:00:00' GROUP BY 1",
            "SELECT status, COUNT(*) FROM request WHERE TIME '12:00:00' IS NULL GROUP BY 1",
        ] {
            assert_eq!(flags(sql)[1], (true, false), "{sql}");
        }
        let read = "SELECT status, COUNT(*) FROM request WHERE 'a1' = 'a1' GROUP BY 1";
        assert_eq!(flags(read)[1], (false, false));
    }

    #[test]
    fn result_columns_are_declared_as_mariadb_declares_them() {
        use super::super::coldef::Code;
        let declared = |sql: &str| -> Vec<(Code, u32, u8)> {
            typing(sql)
                .columns
                .into_iter()
                .map(|m| m.map_or((Code::ByValue, 0, 0), |m| (m.code, m.length, m.decimals)))
                .collect()
        };
        assert_eq!(
            declared(
                "SELECT 1 + 2, 123456789 + 1, 7 DIV 2, COUNT(*), status, id, 5 & 3 FROM request"
            ),
            vec![
                (Code::Long, 3, 0),
                (Code::LongLong, 11, 0),
                (Code::Long, 1, 0),
                (Code::LongLong, 21, 0),
                (Code::Long, 11, 0),
                (Code::LongLong, 20, 0),
                (Code::LongLong, 21, 0),
            ]
        );
        assert_eq!(
            declared(
                "SELECT 1.5, 7 / 2, SUM(status), AVG(id), ROUND(2.5), FLOOR(2.7) FROM request"
            ),
            vec![
                (Code::NewDecimal, 4, 1),
                (Code::NewDecimal, 7, 4),
                (Code::NewDecimal, 33, 0),
                (Code::NewDecimal, 25, 4),
                (Code::NewDecimal, 3, 0),
                (Code::Long, 3, 0),
            ]
        );
        assert_eq!(
            declared("SELECT 'abc', hostname, CONCAT(hostname, 'x'), NULL, SQRT(2), req_time FROM request"),
            vec![
                (Code::VarString, 12, 39),
                (Code::VarString, 128, 0),
                (Code::VarString, 132, 39),
                (Code::Null, 0, 0),
                (Code::Double, 23, 31),
                (Code::Float, 12, 31),
            ]
        );
        assert_eq!(
            declared("SELECT CURDATE(), NOW(3), DATE_ADD('2024-03-05', INTERVAL 1 DAY), -(3 - 5)"),
            vec![
                (Code::Date, 10, 0),
                (Code::DateTime, 23, 3),
                (Code::String, 76, 0),
                (Code::NewDecimal, 4, 0),
            ]
        );
        // Seconds keep the digits of their argument's fraction: a literal's as written (6 where
        // it is no time), a column's 6, a cast's or a literal's own.
        assert_eq!(
            declared(
                "SELECT UNIX_TIMESTAMP('2026-11-28 00:00:00'), UNIX_TIMESTAMP('2026-11-28 \
                 00:00:00.25'), UNIX_TIMESTAMP('abc'), TIME_TO_SEC(script_name), \
                 UNIX_TIMESTAMP(CAST(script_name AS DATETIME(3))), TIME_TO_SEC(TIME '10:00:00.12'), \
                 TIME_TO_SEC(100.5), UNIX_TIMESTAMP(DATE '2026-11-28') FROM request"
            ),
            vec![
                (Code::LongLong, 17, 0),
                (Code::NewDecimal, 20, 2),
                (Code::NewDecimal, 24, 6),
                (Code::NewDecimal, 24, 6),
                (Code::NewDecimal, 21, 3),
                (Code::NewDecimal, 20, 2),
                (Code::NewDecimal, 19, 1),
                (Code::LongLong, 17, 0),
            ]
        );
        // A number moved by an interval is a string; bit-value and hexadecimal literals alone
        // are binary strings of their bytes; MIN of NULL an empty binary string; a string
        // rounded a DOUBLE; MIN of a number computed a LONGLONG, of TRUE a LONG of 5.
        assert_eq!(
            declared(
                "SELECT DATE_ADD(20240305, INTERVAL 1 DAY), b'100000001', 0x41, MIN(NULL), \
                 FLOOR(''), MIN(1), MIN(TRUE) FROM request"
            ),
            vec![
                (Code::String, 76, 0),
                (Code::VarString, 2, 0),
                (Code::VarString, 1, 0),
                (Code::VarString, 0, 0),
                (Code::Double, 17, 0),
                (Code::LongLong, 1, 0),
                (Code::Long, 5, 0),
            ]
        );
        // User variables as their values are when the statement starts.
        let set: std::collections::BTreeMap<String, Ty> =
            [("a".to_string(), Ty::Int), ("s".to_string(), Ty::Text)].into();
        let vars = with_user_types(&set, || {
            declared("SELECT @a, @S, @never, @a + 1, @q := 'x'")
        });
        assert_eq!(
            vars,
            vec![
                (Code::LongLong, 20, 0),
                (Code::LongBlob, 67_108_860, 39),
                (Code::LongBlob, 16_777_216, 39),
                (Code::LongLong, 21, 0),
                (Code::VarString, 4, 39),
            ]
        );
    }

    #[test]
    fn what_is_not_known_is_not_typed() {
        // A report table's column, a `*` over a `USING` join, what is not a query or not
        // parsed.
        assert_eq!(
            columns("SELECT AVG(req_count) FROM report_by_script_name"),
            vec![None]
        );
        assert_eq!(
            columns("SELECT AVG(n) FROM (SELECT * FROM request) t, request r"),
            vec![None]
        );
        // (A `*` over known tables is typed: `a_star_sends_each_tables_columns_as_declared`.)
        assert!(columns("SELECT *, 7 / 2 FROM request JOIN timer USING (id)").is_empty());
        assert!(columns("SHOW TABLES").is_empty());
        // Every statement is typed: its columns' definitions depend on it.
        assert_eq!(
            columns("SELECT SUM(status), COUNT(*) FROM request WHERE id > 5"),
            vec![Some(0), None]
        );
        assert_eq!(
            columns("SELECT SUM(status) FROM request WHERE req_time > 0.5"),
            vec![Some(0)]
        );
        assert!(columns("SELECT 7 / 2 FROM request WHERE (").is_empty());
        let deep = format!("SELECT {}7 / 2{}", "(".repeat(5000), ")".repeat(5000));
        assert!(columns(&deep).is_empty());
    }

    #[test]
    fn derived_tables_and_common_table_expressions_type_their_columns() {
        assert_eq!(
            columns(
                "SELECT AVG(n), MAX(n) / 2 FROM (SELECT COUNT(*) AS n FROM request \
                 GROUP BY script_name) AS x"
            ),
            vec![Some(4), Some(4)]
        );
        assert_eq!(
            columns("SELECT AVG(s) FROM (SELECT status * 1.5 AS s FROM request) t"),
            vec![Some(5)]
        );
        assert_eq!(
            columns("SELECT AVG(x) FROM (SELECT 1 AS x UNION ALL SELECT 2) t"),
            vec![Some(4)]
        );
        assert_eq!(
            columns("SELECT SUM(a) FROM (SELECT 1.25, 2) t(a, b)"),
            vec![Some(2)]
        );
        // A common table expression takes a raw table's name from the raw table.
        assert_eq!(
            columns("WITH request AS (SELECT 1.5 AS status) SELECT AVG(status) FROM request"),
            vec![Some(5)]
        );
        assert_eq!(
            columns("WITH a AS (SELECT 2.5 AS v), b AS (SELECT v * 2 AS w FROM a) SELECT w FROM b"),
            vec![Some(1)]
        );
    }

    /// `*` and `t.*` send each table's columns as declared, in the order of `FROM` (MariaDB
    /// 10.11's answers: `int(11)` a LONG of 11); not over a `USING` join, which merges columns.
    #[test]
    fn a_star_sends_each_tables_columns_as_declared() {
        use super::super::coldef::Code::{DateTime, Long, LongLong, VarString};
        let all = codes("SELECT * FROM request");
        assert_eq!(all.len(), Raw::Request.columns().len());
        assert_eq!(all[0], (LongLong, 20, false), "id bigint(20)");
        assert_eq!(all[2], (Long, 11, false), "req_count int(11)");
        assert_eq!(all[1].0, VarString, "hostname");
        let star = codes("SELECT t.*, r.status FROM (SELECT FROM_UNIXTIME(0) AS d) t, request r");
        assert_eq!(
            star.iter().map(|c| c.0).collect::<Vec<_>>(),
            [DateTime, Long]
        );
        assert_eq!(codes("SELECT x.* FROM request r").len(), 0, "no table x");
        assert!(typing("SELECT * FROM request JOIN request r2 USING (id)")
            .columns
            .is_empty());
    }

    /// A derived table MariaDB materializes (grouped, with a `LIMIT`, …) sends its temporary
    /// table's fields: NULL and `''` a CHAR(0), a constant number without BINARY; merged
    /// (a plain `WHERE`), its expressions' own (MariaDB 10.11's answers).
    #[test]
    fn materialized_derived_tables_send_their_temporary_tables_fields() {
        use super::super::coldef::Code::{Null, String, VarString};
        let meta = |sql: &str| {
            typing(sql)
                .columns
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
        };
        let grouped =
            meta("SELECT * FROM (SELECT NULL c1, '' c2, 'ab' c3, 1 c4 FROM request GROUP BY 1) t");
        assert_eq!(
            grouped.iter().map(|m| m.code).collect::<Vec<_>>(),
            [String, String, VarString, super::super::coldef::Code::Long]
        );
        assert!(grouped[0].binary && grouped[0].nullable);
        assert!(!grouped[1].binary && !grouped[1].nullable);
        assert_eq!(grouped[2].decimals, 0);
        assert!(grouped[3].field, "a number there is a field: no BINARY");
        for limited in [
            "SELECT c1, c2 FROM (SELECT NULL c1, '' c2 FROM request LIMIT 2) t",
            "WITH x AS (SELECT NULL c1, '' c2) SELECT * FROM x",
            "SELECT * FROM (SELECT DISTINCT NULL c1, '' c2 FROM request) t",
        ] {
            let m = meta(limited);
            assert_eq!((m[0].code, m[1].code), (String, String), "{limited}");
        }
        let merged = meta("SELECT * FROM (SELECT NULL c1, '' c2 FROM request WHERE status > 0) t");
        assert_eq!((merged[0].code, merged[1].code), (Null, VarString));
        assert!(!merged[1].field);
        // A UNION's string is as long as its longest select's, NULL where any is.
        let united = meta("SELECT 'a' UNION ALL SELECT 'abcd' UNION ALL SELECT NULL");
        assert_eq!(united[0].length, 16);
        assert!(united[0].nullable);
    }

    /// A string's digits are never fixed, a table's string column's (sent with 0 decimals) as
    /// much as a literal's: a DOUBLE computed from one is "not fixed" (MariaDB 10.11's 31).
    #[test]
    fn doubles_of_strings_have_no_fixed_decimals() {
        for sql in [
            "SELECT STD(hostname) FROM request",
            "SELECT VARIANCE(script_name) FROM request",
            "SELECT AVG(hostname) FROM request",
            "SELECT '1.5' + 1",
        ] {
            let m = typing(sql).columns[0].expect(sql);
            assert_eq!(m.decimals, 31, "{sql}");
        }
        let m = typing("SELECT STD(status) FROM request").columns[0].unwrap();
        assert_eq!(
            m.decimals, 4,
            "an integer's 0 and div_precision_increment's 4"
        );
    }

    /// A part of a date or a time is all digits (`HOUR(d) + 0` 4 long) and a character longer
    /// held in a field (grouped, `MIN`, a `UNION`) or read as a signed integer (`ABS`); not
    /// `DAYOFWEEK`. Answers of MariaDB 10.11.
    #[test]
    fn information_schema_columns_are_declared_as_mariadbs() {
        use super::super::coldef::Code;
        let t = typing(
            "SELECT TABLE_NAME, t.table_rows, CREATE_TIME, TABLE_ROWS + 1, COLUMN_TYPE \
             FROM information_schema.TABLES t JOIN information_schema.COLUMNS c \
             USING (TABLE_NAME) WHERE TABLE_SCHEMA = 'pinba'",
        );
        let [name, rows, created, plus, column_type] =
            [0, 1, 2, 3, 4].map(|i| t.columns[i].expect("typed"));
        assert_eq!(
            (name.code, name.length, name.nullable),
            (Code::VarString, 256, false)
        );
        assert!(rows.unsigned && rows.nullable && rows.code == Code::LongLong);
        assert_eq!((created.code, created.length), (Code::DateTime, 19));
        assert!(plus.unsigned, "a sum with an unsigned operand is unsigned");
        assert_eq!(
            (column_type.code, column_type.length),
            (Code::Blob, 786_420)
        );
        assert!(!column_type.nullable && column_type.blob_flag());
        // Without a schema's name too (SQLite finds `COLLATIONS` in `information_schema`).
        let c = typing("SELECT ID, SORTLEN FROM COLLATIONS").columns;
        assert_eq!(c[0].map(|m| (m.length, m.nullable)), Some((11, true)));
        assert_eq!(c[1].map(|m| (m.length, m.nullable)), Some((3, false)));
    }

    #[test]
    fn parts_of_dates_take_a_sign_in_a_field() {
        let length = |sql: &str| typing(sql).columns[0].expect(sql).length;
        let d = "FROM_UNIXTIME(timestamp)";
        for (sql, expected) in [
            (format!("SELECT HOUR({d}) FROM request"), 2),
            (
                format!("SELECT HOUR({d}) h, COUNT(*) FROM request GROUP BY h"),
                3,
            ),
            (format!("SELECT DISTINCT YEAR({d}) FROM request"), 5),
            (
                format!("SELECT DAYOFWEEK({d}) h, COUNT(*) FROM request GROUP BY h"),
                1,
            ),
            (format!("SELECT HOUR({d}) + 0 FROM request"), 4),
            (format!("SELECT ABS(MONTH({d})) FROM request"), 3),
            (format!("SELECT MIN(HOUR({d})) FROM request"), 3),
            (format!("SELECT HOUR({d}) FROM request UNION SELECT 1"), 3),
            (
                format!("SELECT EXTRACT(YEAR_MONTH FROM {d}) FROM request"),
                6,
            ),
            (format!("SELECT EXTRACT(DAY FROM {d}) FROM request"), 3),
            (format!("SELECT STD(HOUR({d})) FROM request"), 10),
            ("SELECT STD(status) FROM request".into(), 26),
            ("SELECT STD(ROUND(req_time, 2)) FROM request".into(), 19),
        ] {
            assert_eq!(length(&sql), expected, "{sql}");
        }
    }

    /// `IF` and `CASE` may be NULL where any operand may be, a condition's too.
    #[test]
    fn if_and_case_are_null_where_an_operand_may_be() {
        let nullable = |sql: &str| typing(sql).columns[0].expect(sql).nullable;
        assert!(nullable("SELECT IF(status > 200, 1, 0) FROM request"));
        assert!(nullable(
            "SELECT CASE status WHEN 200 THEN 'a' ELSE 'b' END FROM request"
        ));
        assert!(!nullable("SELECT IF(1, 'a', 'b')"));
        assert!(!nullable(
            "SELECT CASE WHEN COUNT(*) > 1 THEN 'a' ELSE 'b' END FROM request"
        ));
    }

    #[test]
    fn comparisons_coerce_by_one_rule_per_kind_of_operands() {
        use Coercion as C;
        let cases: &[(&[Ty], Option<Coercion>)] = &[
            (&[Ty::Int, Ty::Int], None),
            (&[Ty::Dec(2), Ty::Double], None),
            (&[Ty::Text, Ty::Text], None),
            (&[Ty::Int, Ty::Text], Some(C::Double)),
            (&[Ty::Text, Ty::Dec(1), Ty::Text], Some(C::Double)),
            (&[Ty::Null, Ty::Text, Ty::Int], Some(C::Double)),
            (&[Ty::Binary, Ty::Int], Some(C::Double)),
            (&[Ty::DateTime, Ty::Text], Some(C::DateTime)),
            (&[Ty::Date, Ty::Int], Some(C::DateTime)),
            (&[Ty::Date, Ty::DateTime], Some(C::DateTime)),
            (&[Ty::Date, Ty::Date], None),
            (&[Ty::Time, Ty::Text], Some(C::Time)),
            (&[Ty::Time, Ty::Int], Some(C::Time)),
            (&[Ty::Time, Ty::Time], Some(C::Time)),
            (&[Ty::Time, Ty::Date], Some(C::DateTime)),
            (&[Ty::Time, Ty::Text, Ty::DateTime], Some(C::DateTime)),
            (&[Ty::Binary, Ty::Text], Some(C::Bytes)),
            (&[Ty::Int, Ty::Other], None),
            (&[Ty::Null, Ty::Null], None),
        ];
        for (types, want) in cases {
            assert_eq!(comparison(types), *want, "{types:?}");
        }
        assert_eq!(coercer(C::Double, Ty::Text), Some("mysql_double"));
        assert_eq!(coercer(C::Double, Ty::Int), None);
        assert_eq!(coercer(C::DateTime, Ty::DateTime), None);
        assert_eq!(coercer(C::DateTime, Ty::Date), Some("mysql_datetime"));
        assert_eq!(coercer(C::Bytes, Ty::Binary), None);
        assert_eq!(coercer(C::DateTime, Ty::Time), Some("mysql_time_datetime"));
        assert_eq!(coercer(C::Time, Ty::Dec(1)), Some("mysql_time_key_decimal"));
        assert_eq!(coercer(C::Time, Ty::Time), Some("mysql_time_key"));
        assert_eq!(coercer(C::Time, Ty::UInt), Some("mysql_time_key_unsigned"));
    }

    #[test]
    fn the_operands_read_as_strings_are_found_by_one_rule() {
        let expr = |sql: &str| match Parser::parse_sql(&MySql, &format!("SELECT {sql}")).as_deref()
        {
            Ok([Statement::Query(q)]) => match q.body.as_ref() {
                SetExpr::Select(s) => match &s.projection[0] {
                    SelectItem::UnnamedExpr(e) => e.clone(),
                    _ => unreachable!(),
                },
                _ => unreachable!(),
            },
            _ => panic!("{sql}"),
        };
        let cases: &[(&str, Ty, &[usize])] = &[
            ("CONCAT(1, 2, 3)", Ty::Text, &[0, 1, 2]),
            ("LPAD(1e0, 5, 0.5)", Ty::Text, &[0, 2]),
            ("RTRIM(1e0)", Ty::Text, &[0]),
            ("ELT(1, 2.5, 'a')", Ty::Text, &[1, 2]),
            ("LENGTH(PI())", Ty::Int, &[0]),
            ("TRIM(1e0)", Ty::Text, &[0]),
            ("TRIM(LEADING 1 FROM 1e0)", Ty::Text, &[0, 1]),
            ("SUBSTRING(1e0 FROM 1 FOR 2)", Ty::Text, &[0]),
            ("POSITION(1 IN 1e0)", Ty::Int, &[0, 1]),
            ("1e0 LIKE 1", Ty::Int, &[0, 1]),
            ("1e0 REGEXP 1", Ty::Int, &[0, 1]),
            ("CAST(1e0 AS CHAR)", Ty::Text, &[0]),
            ("CONVERT(1e0, CHAR)", Ty::Text, &[0]),
            ("CAST(1e0 AS SIGNED)", Ty::Int, &[]),
            ("IF(1, 2, 'a')", Ty::Text, &[1, 2]),
            ("IF(1, 2, 3)", Ty::Int, &[]),
            ("CASE WHEN 1 THEN 2.5 ELSE 'a' END", Ty::Text, &[1, 2]),
            ("COALESCE(1e0, 'a')", Ty::Text, &[0, 1]),
            ("ROUND(1e0, 2)", Ty::Double, &[]),
            ("1e0 = '1'", Ty::Int, &[]),
        ];
        for (sql, ty, want) in cases {
            assert_eq!(string_operands(&expr(sql), *ty), *want, "{sql}");
        }
    }

    /// What the translation types an expression by before rewriting it: each subexpression's
    /// fixed decimals, where it is a DOUBLE that has them.
    #[test]
    fn typing_finds_each_doubles_fixed_decimals() {
        let parsed = Parser::parse_sql(
            &MySql,
            "SELECT CONCAT(ROUND(1.5e0, 2), PI() * 2, 1e0 / 3, 7 / 2)",
        )
        .unwrap();
        let Statement::Query(q) = &parsed[0] else {
            panic!("a query")
        };
        let SetExpr::Select(s) = q.body.as_ref() else {
            panic!()
        };
        let SelectItem::UnnamedExpr(e) = &s.projection[0] else {
            panic!()
        };
        let mut found = Found::default();
        let (t, _) = Scope::none().typed_into(e, &mut found);
        assert_eq!(t, Ty::Text);
        let args = children(e);
        let fixed: Vec<Option<Declared>> = args
            .iter()
            .map(|a| Found::fixed(found.take(Found::key(a))))
            .collect();
        assert_eq!(
            fixed,
            vec![
                Some(Declared::Double(2)),
                Some(Declared::Double(6)),
                None,
                None
            ]
        );
        // Each expression is found once.
        assert_eq!(found.take(Found::key(args[0])), None);
        assert_eq!(found.take(Found::key(e)).map(|f| f.0), Some(Ty::Text));
    }
}
