//! A MySQL statement as the SQL front end sees it: what kind it is ([`Statement`]), read off
//! its first words, and for a query, the same query in SQLite's dialect made to give MySQL's
//! answers (`translate`'s, through its syntax tree), with its result columns' DECIMAL scales
//! (`typing`'s: SQLite has no DECIMAL, so the session writes them with MySQL's scale).
//!
//! Pure: text in, text out. The lexer here only classifies (and cuts a multi-statement text at
//! its semicolons, and reads `SHOW`'s and `DROP TABLE`'s few arguments); it rewrites nothing.

use super::coldef::Meta;
use super::information_schema;
use super::translate::Refusal;
use super::variables::Context;

/// One statement, classified.
#[derive(Clone, Debug, PartialEq)]
pub enum Statement {
    /// A query SQLite evaluates: the rewritten text.
    Query(String),
    /// `SHOW …`: the words after `SHOW`, upper-cased, and the raw remainder's tokens.
    Show(Show),
    /// `DESCRIBE t`, `DESC t`, `EXPLAIN t`: the table's columns.
    Describe { table: String },
    /// `USE db`.
    Use(String),
    /// Session chatter accepted and ignored: `BEGIN`, `COMMIT`, `ROLLBACK`, `SET TRANSACTION`, …
    Ignored,
    /// `DO expr, …`: the expressions, evaluated for what they do (their warnings, `SLEEP`, an
    /// assignment `@a := …`) and their values dropped.
    Do(String),
    /// `SET …`: its assignments, in order.
    Set(Vec<Set>),
    /// `CREATE TABLE …` (the whole text, for the converter).
    CreateTable(String),
    /// `DROP TABLE [IF EXISTS] a, b`.
    DropTables {
        if_exists: bool,
        tables: Vec<String>,
    },
    /// A write to the tables (`INSERT`, `UPDATE`, `DELETE`, `ALTER`, …): its verb.
    Write(String),
    /// Empty (only comments or `;`).
    Empty,
    /// Something the front end does not do, and why.
    Unsupported(String),
    /// A query too large for SQL's memory to read, and how large.
    OutOfMemory(String),
    /// A query MySQL refuses with this error (its code and words).
    Refused(u16, String),
}

/// One assignment of a `SET`.
#[derive(Clone, Debug, PartialEq)]
pub enum Set {
    /// A system variable (`[SESSION|GLOBAL] name`, `@@[session.|global.]name`), lower-cased.
    System {
        name: String,
        global: bool,
        value: SetValue,
    },
    /// `@name = value`, `@name := value`.
    User { name: String, value: SetValue },
    /// `NAMES charset [COLLATE collation]`, `CHARACTER SET charset` (`names` false: the
    /// connection's character set stays the database's).
    Names {
        charset: String,
        collation: Option<String>,
        names: bool,
    },
}

/// What a `SET` assigns, before it is evaluated.
#[derive(Clone, Debug, PartialEq)]
pub enum SetValue {
    Default,
    /// A word (`ON`, `utf8mb4`, `TRADITIONAL`) or a string literal: its text.
    Word(String),
    /// An expression, as written: evaluated as `SELECT expr` is.
    Expr(String),
}

/// `SHOW` statements the front end answers.
#[derive(Clone, Debug, PartialEq)]
pub enum Show {
    Databases {
        like: Option<String>,
    },
    Tables {
        full: bool,
        like: Option<String>,
        database: Option<String>,
    },
    Columns {
        full: bool,
        table: String,
        like: Option<String>,
    },
    CreateTable {
        table: String,
    },
    TableStatus {
        like: Option<String>,
    },
    /// `SHOW [GLOBAL|SESSION] VARIABLES`: `global`, the server's defaults, not the session's.
    Variables {
        like: Option<String>,
        global: bool,
    },
    /// `SHOW [GLOBAL|SESSION] STATUS`: `global`, the server's figures, not the session's.
    Status {
        like: Option<String>,
        global: bool,
    },
    /// `SHOW OPEN TABLES`: the catalog's tables, none in use or locked.
    OpenTables {
        like: Option<String>,
    },
    /// `SHOW [STORAGE] ENGINES`: `information_schema.ENGINES`.
    Engines,
    /// `SHOW WARNINGS` (`errors`: `SHOW ERRORS`): what the session's last statement left;
    /// `limit`, its `LIMIT [offset,] count`.
    Warnings {
        errors: bool,
        limit: Option<(u64, u64)>,
    },
    /// `SHOW COUNT(*) WARNINGS` (`errors`: `… ERRORS`): `@@warning_count` as MySQL answers it.
    Count {
        errors: bool,
    },
    /// `SHOW INDEX FROM t`, `SHOW SLAVE STATUS`, …: an empty answer with the columns MySQL
    /// gives them, in parts; `computed`, declared as a `SHOW`'s computed columns (MariaDB's
    /// replication and profiling answers), else as `information_schema`'s.
    Empty {
        columns: &'static [&'static [information_schema::Column]],
        computed: bool,
    },
    CreateDatabase {
        database: String,
    },
    /// `SHOW CHARACTER SET`, `SHOW CHARSET`: `information_schema.CHARACTER_SETS`.
    CharacterSets {
        like: Option<String>,
    },
    /// `SHOW COLLATION`: `information_schema.COLLATIONS`.
    Collations {
        like: Option<String>,
    },
    /// `SHOW [FULL] PROCESSLIST`: the server's sessions.
    Processlist {
        full: bool,
    },
    /// `SHOW … WHERE condition`: the `SHOW`'s rows the condition (MySQL's text, over its
    /// columns) keeps.
    Where(Box<Show>, String),
}

/// A lexical token, with whether whitespace (or a comment) came before it.
#[derive(Clone, Debug, PartialEq)]
struct Token {
    kind: Kind,
    space_before: bool,
    /// Where it is in the statement's text (`0..0` for a token a rewrite made).
    span: std::ops::Range<usize>,
}

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    /// An identifier or keyword, as written.
    Word(String),
    /// A back-quoted identifier, unquoted.
    Quoted(String),
    /// A string literal, unescaped (MySQL's rules).
    Str(String),
    /// A number (or a hex/bit literal) as written.
    Number(String),
    /// `@@name` (a system variable, `session.`/`global.` dropped) or `@name` (a user variable).
    SysVar(String),
    UserVar(String),
    /// An operator or punctuation, as written.
    Punct(String),
}

impl Token {
    fn word(&self) -> Option<&str> {
        match &self.kind {
            Kind::Word(w) => Some(w),
            _ => None,
        }
    }

    fn is_word(&self, w: &str) -> bool {
        self.word().is_some_and(|x| x.eq_ignore_ascii_case(w))
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(&self.kind, Kind::Punct(x) if x == p)
    }

    /// An identifier's name: a word or a back-quoted name.
    fn name(&self) -> Option<&str> {
        match &self.kind {
            Kind::Word(w) | Kind::Quoted(w) => Some(w),
            _ => None,
        }
    }
}

/// Why a statement cannot even be read.
#[derive(Debug, PartialEq)]
pub struct LexError(pub String);

/// Splits `sql` into tokens (comments dropped, `;` at the end dropped).
fn lex(sql: &str) -> Result<Vec<Token>, LexError> {
    let mut out = tokens(sql)?;
    while out.last().is_some_and(|t| t.is_punct(";")) {
        out.pop();
    }
    if out.iter().any(|t| t.is_punct(";")) {
        // MySQL's answer without CLIENT_MULTI_STATEMENTS: a syntax error.
        return Err(LexError(
            "several statements separated by `;` in one query need the client's \
             CLIENT_MULTI_STATEMENTS (mysqli's multi_query, PyMySQL's \
             client_flag=CLIENT.MULTI_STATEMENTS, …)"
                .into(),
        ));
    }
    Ok(out)
}

/// The statements of a query sent with `CLIENT_MULTI_STATEMENTS`: its text cut at each `;`
/// outside literals, quoted names and comments, without what follows the last `;` when that
/// is only whitespace or comments. A text that cannot be read is one statement (answered with
/// its error).
pub fn split(sql: &str) -> Vec<&str> {
    let Ok(all) = tokens(sql) else {
        return vec![sql];
    };
    let mut out = Vec::new();
    let mut start = 0;
    for t in all.iter().filter(|t| t.is_punct(";")) {
        out.push(&sql[start..t.span.start]);
        start = t.span.end;
    }
    out.push(&sql[start..]);
    while out.len() > 1
        && out
            .last()
            .is_some_and(|s| tokens(s).is_ok_and(|t| t.is_empty()))
    {
        out.pop();
    }
    out
}

/// Whether `sql` reads no table: a `SELECT`, `SET` or `DO` without `FROM`. MySQL's diagnostics
/// outlive such a statement (`SELECT @@warning_count` reads the one before), where one that
/// reads a table clears them.
pub fn reads_no_table(sql: &str) -> bool {
    let Ok(t) = tokens(sql) else {
        return false;
    };
    t.first()
        .is_some_and(|f| f.is_word("SELECT") || f.is_word("SET") || f.is_word("DO"))
        && !t.iter().any(|t| t.is_word("FROM"))
}

/// `sql`'s tokens, `;` included.
fn tokens(sql: &str) -> Result<Vec<Token>, LexError> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut space = false;
    while i < b.len() {
        let c = b[i];
        let rest = &sql[i..];
        if c.is_ascii_whitespace() {
            space = true;
            i += 1;
            continue;
        }
        if c == b'#' || rest.starts_with("-- ") || rest == "--" || rest.starts_with("--\n") {
            i += rest.find('\n').unwrap_or(rest.len());
            space = true;
            continue;
        }
        if let Some(body) = rest.strip_prefix("/*") {
            let end = body
                .find("*/")
                .ok_or_else(|| LexError("unterminated /* comment".into()))?;
            // MySQL's executable comments (`/*!40101 SET … */`) hold statements for MySQL
            // itself; the front end treats them as comments.
            i += end + 4;
            space = true;
            continue;
        }
        let start = i;
        let kind = match c {
            b'\'' | b'"' => {
                let (s, len) = string(&sql[i..], c)?;
                i += len;
                Kind::Str(s)
            }
            b'`' => {
                let end = rest[1..]
                    .find('`')
                    .ok_or_else(|| LexError("unterminated `identifier`".into()))?;
                i += end + 2;
                Kind::Quoted(rest[1..1 + end].to_string())
            }
            b'@' => {
                let sys = rest.starts_with("@@");
                let from = if sys { 2 } else { 1 };
                let len = rest[from..]
                    .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '$'))
                    .unwrap_or(rest.len() - from);
                let name = &rest[from..from + len];
                i += from + len;
                if sys {
                    let name = name.to_ascii_lowercase();
                    let name = ["session.", "global.", "local."]
                        .iter()
                        .find_map(|p| name.strip_prefix(p))
                        .map(str::to_string)
                        .unwrap_or(name);
                    Kind::SysVar(name)
                } else {
                    Kind::UserVar(name.to_string())
                }
            }
            c if c.is_ascii_digit()
                || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) =>
            {
                let len = number_len(rest);
                i += len;
                Kind::Number(rest[..len].to_string())
            }
            // `b'0101'`: a bit-value literal, as the number it is.
            b'b' | b'B' if b.get(i + 1) == Some(&b'\'') => {
                let end = rest[2..]
                    .find('\'')
                    .ok_or_else(|| LexError("unterminated b'…' literal".into()))?;
                let bits = &rest[2..2 + end];
                let value = u64::from_str_radix(if bits.is_empty() { "0" } else { bits }, 2)
                    .map_err(|_| LexError(format!("b'{bits}' is not a bit-value literal")))?;
                i += end + 3;
                Kind::Number(value.to_string())
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 || c == b'$' => {
                let len = rest
                    .find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '$'))
                    .unwrap_or(rest.len());
                i += len;
                Kind::Word(rest[..len].to_string())
            }
            _ => {
                let two = rest.get(..2).unwrap_or("");
                let three = rest.get(..3).unwrap_or("");
                let op = if three == "<=>" {
                    three
                } else if ["<=", ">=", "<>", "!=", "||", "&&", ":=", "<<", ">>", "->"]
                    .contains(&two)
                {
                    two
                } else {
                    &rest[..rest.chars().next().map_or(1, char::len_utf8)]
                };
                i += op.len();
                Kind::Punct(op.to_string())
            }
        };
        debug_assert!(i > start);
        // `'a' 'b'` is one string in MySQL.
        if let (
            Kind::Str(next),
            Some(Token {
                kind: Kind::Str(prev),
                span,
                ..
            }),
        ) = (&kind, out.last_mut())
        {
            prev.push_str(next);
            span.end = i;
            space = false;
            continue;
        }
        out.push(Token {
            kind,
            span: start..i,
            space_before: space,
        });
        space = false;
    }
    Ok(out)
}

/// A string literal at the start of `s` quoted by `q`: its text (MySQL's backslash escapes and
/// doubled quotes undone) and its length in `s`.
fn string(s: &str, q: u8) -> Result<(String, usize), LexError> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'\\' if i + 1 < b.len() => {
                // `\%` and `\_` keep their backslash (they are LIKE escapes).
                if matches!(b[i + 1], b'%' | b'_') {
                    out.push(b'\\');
                }
                out.push(match b[i + 1] {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'r' => b'\r',
                    b'0' => 0,
                    b'b' => 8,
                    b'Z' => 26,
                    other => other,
                });
                i += 2;
            }
            c if c == q => {
                if b.get(i + 1) == Some(&q) {
                    out.push(q);
                    i += 2;
                } else {
                    return Ok((String::from_utf8_lossy(&out).into_owned(), i + 1));
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Err(LexError("unterminated string literal".into()))
}

fn number_len(s: &str) -> usize {
    let b = s.as_bytes();
    if s.len() > 2 && (s.starts_with("0x") || s.starts_with("0X")) {
        return 2 + b[2..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
    }
    let mut i = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if b.get(i) == Some(&b'.') {
        i += 1 + b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let digits = b[j..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 {
            i = j + digits;
        }
    }
    i
}

/// A string as an SQLite literal.
pub fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// An identifier as SQLite (and MySQL) read it quoted.
pub fn quote_ident(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

/// Classifies one statement (as a session with its variables' defaults reads it).
pub fn classify(sql: &str) -> Result<Statement, LexError> {
    classify_typed(sql).map(|(s, _)| s)
}

/// [`classify`], with a query's result columns' DECIMAL scales (`typing`'s `columns`: empty
/// for what is not a query, or where they are not known).
pub fn classify_typed(sql: &str) -> Result<(Statement, Vec<Option<Meta>>), LexError> {
    classify_in(sql, &Context::default())
}

/// [`classify_typed`] as a session whose variables are `context` reads it.
pub fn classify_in(
    sql: &str,
    context: &Context,
) -> Result<(Statement, Vec<Option<Meta>>), LexError> {
    let mut decimals = Vec::new();
    let sql = super::dialect::executable_comments(sql);
    let statement = classify_into(&sql, context, &mut decimals)?;
    Ok((statement, decimals))
}

fn classify_into(
    sql: &str,
    context: &Context,
    decimals: &mut Vec<Option<Meta>>,
) -> Result<Statement, LexError> {
    let tokens = lex(sql)?;
    let Some(first) = tokens.first() else {
        return Ok(Statement::Empty);
    };
    let verb = match first.word() {
        Some(w) => w.to_ascii_uppercase(),
        None if first.is_punct("(") => return query(sql, context, decimals),
        None => {
            return Err(LexError(format!(
                "a statement cannot start with {:?}",
                first.kind
            )))
        }
    };
    let words: Vec<String> = tokens
        .iter()
        .take(4)
        .map(|t| t.word().unwrap_or("").to_ascii_uppercase())
        .collect();
    let second = words.get(1).map(String::as_str).unwrap_or("");
    Ok(match verb.as_str() {
        "SELECT" | "WITH" | "VALUES" => query(sql, context, decimals)?,
        "SHOW" => show(sql, &tokens[1..])?,
        "DESCRIBE" | "DESC" | "EXPLAIN" => {
            let rest = &tokens[1..];
            if rest.first().is_some_and(|t| {
                ["SELECT", "WITH", "FORMAT", "EXTENDED", "ANALYZE"]
                    .iter()
                    .any(|w| t.is_word(w))
            }) {
                Statement::Unsupported("EXPLAIN of a query is not supported".into())
            } else {
                let table = table_name(rest)
                    .ok_or_else(|| LexError(format!("{verb} needs a table name")))?;
                let after = if rest.get(1).is_some_and(|t| t.is_punct(".")) {
                    3
                } else {
                    1
                };
                // `DESCRIBE t col`: the columns the name (a LIKE pattern, as MySQL reads it)
                // matches.
                match rest.get(after).map(|t| &t.kind) {
                    Some(Kind::Word(c) | Kind::Quoted(c) | Kind::Str(c)) => {
                        Statement::Show(Show::Columns {
                            full: false,
                            table,
                            like: Some(c.clone()),
                        })
                    }
                    _ => Statement::Describe { table },
                }
            }
        }
        "USE" => Statement::Use(
            tokens
                .get(1)
                .and_then(Token::name)
                .ok_or_else(|| LexError("USE needs a database name".into()))?
                .to_string(),
        ),
        "SET" => set(sql, &tokens[1..])?,
        "BEGIN" | "COMMIT" | "ROLLBACK" | "SAVEPOINT" | "RELEASE" => Statement::Ignored,
        "START" if second == "TRANSACTION" => Statement::Ignored,
        "DO" => Statement::Do(sql[tokens.get(1).map_or(sql.len(), |t| t.span.start)..].to_string()),
        "CREATE"
            if second == "TABLE"
                || (second == "TEMPORARY" && words.get(2).is_some_and(|w| w == "TABLE")) =>
        {
            Statement::CreateTable(sql.to_string())
        }
        "CREATE" if second == "DATABASE" || second == "SCHEMA" => {
            Statement::Write("CREATE DATABASE".into())
        }
        "DROP" if second == "TABLE" || second == "TABLES" => drop_tables(&tokens[2..])?,
        "INSERT" | "UPDATE" | "DELETE" | "REPLACE" | "TRUNCATE" | "ALTER" | "RENAME" | "LOAD"
        | "CREATE" | "DROP" | "GRANT" | "REVOKE" | "OPTIMIZE" | "REPAIR" | "ANALYZE" => {
            Statement::Write(format!(
                "{verb}{}",
                if second.is_empty() {
                    String::new()
                } else {
                    format!(" {second}")
                }
            ))
        }
        _ => Statement::Unsupported(format!("`{verb}` statements are not supported")),
    })
}

/// A query as SQLite's text, or why it cannot run; its result columns' DECIMAL scales go to
/// `decimals`.
fn query(
    sql: &str,
    context: &Context,
    decimals: &mut Vec<Option<Meta>>,
) -> Result<Statement, LexError> {
    match super::translate::query_in(sql, context) {
        Ok((text, columns)) => {
            *decimals = columns;
            Ok(Statement::Query(text))
        }
        Err(Refusal::Syntax(why)) => Err(LexError(why)),
        Err(Refusal::Unsupported(why)) => Ok(Statement::Unsupported(why)),
        Err(Refusal::Memory(why)) => Ok(Statement::OutOfMemory(why)),
        Err(Refusal::Error(code, why)) => Ok(Statement::Refused(code, why)),
    }
}

/// `SET …`'s assignments (`rest`: the tokens after `SET`). `SET TRANSACTION …` changes nothing
/// here (every statement reads the live data); `SET PASSWORD`, `ROLE` and `STATEMENT` are
/// refused, naming them.
fn set(sql: &str, rest: &[Token]) -> Result<Statement, LexError> {
    let scope = |t: &Token| {
        ["SESSION", "GLOBAL", "LOCAL", "PERSIST", "PERSIST_ONLY"]
            .iter()
            .any(|w| t.is_word(w))
    };
    let first_word = rest.iter().find(|t| !scope(t));
    if first_word.is_some_and(|t| t.is_word("TRANSACTION")) {
        return Ok(Statement::Ignored);
    }
    for what in ["PASSWORD", "ROLE", "STATEMENT"] {
        if rest.first().is_some_and(|t| t.is_word(what))
            || (what == "ROLE"
                && rest.first().is_some_and(|t| t.is_word("DEFAULT"))
                && rest.get(1).is_some_and(|t| t.is_word("ROLE")))
        {
            return Ok(Statement::Unsupported(format!(
                "SET {what} is not supported by pinbad"
            )));
        }
    }
    // The assignments, cut at the commas outside parentheses.
    let mut pieces: Vec<&[Token]> = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, t) in rest.iter().enumerate() {
        if t.is_punct("(") {
            depth += 1;
        } else if t.is_punct(")") {
            depth = depth.saturating_sub(1);
        } else if t.is_punct(",") && depth == 0 {
            pieces.push(&rest[start..i]);
            start = i + 1;
        }
    }
    pieces.push(&rest[start..]);
    let value = |tokens: &[Token], user: bool| -> Result<SetValue, LexError> {
        let (Some(first), Some(last)) = (tokens.first(), tokens.last()) else {
            return Err(LexError("SET needs a value after `=`".into()));
        };
        if tokens.len() == 1 {
            match &first.kind {
                Kind::Word(w) if w.eq_ignore_ascii_case("DEFAULT") => return Ok(SetValue::Default),
                Kind::Word(w)
                    if !user
                        && !["NULL", "TRUE", "FALSE"]
                            .iter()
                            .any(|k| w.eq_ignore_ascii_case(k)) =>
                {
                    return Ok(SetValue::Word(w.clone()))
                }
                Kind::Str(s) if !user => return Ok(SetValue::Word(s.clone())),
                _ => {}
            }
        }
        Ok(SetValue::Expr(
            sql[first.span.start..last.span.end].to_string(),
        ))
    };
    let name_of = |t: &Token| -> Option<String> {
        match &t.kind {
            Kind::Word(w) | Kind::Quoted(w) | Kind::Str(w) => Some(w.clone()),
            _ => None,
        }
    };
    let mut out = Vec::new();
    for piece in pieces {
        let mut p = piece;
        let mut global = false;
        while let Some(t) = p.first().filter(|t| scope(t)) {
            global = !t.is_word("SESSION") && !t.is_word("LOCAL");
            p = &p[1..];
        }
        let Some(head) = p.first() else {
            return Err(LexError("SET needs a variable".into()));
        };
        if head.is_word("NAMES") || head.is_word("CHARSET") || head.is_word("CHARACTER") {
            let at = if head.is_word("CHARACTER") { 2 } else { 1 };
            let charset = p
                .get(at)
                .and_then(name_of)
                .ok_or_else(|| LexError("SET NAMES needs a character set".into()))?;
            let collation = match p.get(at + 1) {
                Some(c) if c.is_word("COLLATE") && head.is_word("NAMES") => Some(
                    p.get(at + 2)
                        .and_then(name_of)
                        .ok_or_else(|| LexError("COLLATE needs a collation".into()))?,
                ),
                None => None,
                Some(_) => return Err(LexError("SET NAMES charset [COLLATE collation]".into())),
            };
            out.push(Set::Names {
                charset,
                collation,
                names: head.is_word("NAMES"),
            });
            continue;
        }
        let (target, assigned) = match p.get(1) {
            Some(eq) if eq.is_punct("=") || eq.is_punct(":=") => (head, &p[2..]),
            _ => {
                return Err(LexError(format!(
                    "SET needs `variable = value`, not `{}`",
                    &sql[head.span.start..p.last().map_or(head.span.end, |t| t.span.end)]
                )))
            }
        };
        match &target.kind {
            Kind::UserVar(name) => out.push(Set::User {
                name: name.clone(),
                value: value(assigned, true)?,
            }),
            Kind::SysVar(name) => {
                let written = sql[target.span.clone()].to_ascii_lowercase();
                out.push(Set::System {
                    name: name.clone(),
                    global: global || written.starts_with("@@global."),
                    value: value(assigned, false)?,
                })
            }
            Kind::Word(name) | Kind::Quoted(name) => out.push(Set::System {
                name: name.to_ascii_lowercase(),
                global,
                value: value(assigned, false)?,
            }),
            _ => return Err(LexError("SET needs a variable's name".into())),
        }
    }
    Ok(Statement::Set(out))
}

/// `[db.]name` at the start of `tokens` (a `FROM db` after it is the caller's).
fn table_name(tokens: &[Token]) -> Option<String> {
    let first = tokens.first()?.name()?;
    if tokens.get(1).is_some_and(|t| t.is_punct(".")) {
        return tokens.get(2)?.name().map(str::to_string);
    }
    Some(first.to_string())
}

/// The pattern of a `LIKE 'x'` in `tokens`, if any.
fn like_of(tokens: &[Token]) -> Option<String> {
    let at = tokens.iter().position(|t| t.is_word("LIKE"))?;
    match &tokens.get(at + 1)?.kind {
        Kind::Str(s) => Some(s.clone()),
        _ => None,
    }
}

/// `LIMIT [offset,] count` (or `LIMIT count OFFSET offset`) among `tokens`: the offset and the
/// count, numbers as written.
fn limit_of(tokens: &[Token]) -> Result<Option<(u64, u64)>, LexError> {
    let Some(at) = tokens.iter().position(|t| t.is_word("LIMIT")) else {
        return Ok(None);
    };
    let number = |i: usize| match tokens.get(i).map(|t| &t.kind) {
        Some(Kind::Number(n)) => n
            .parse::<u64>()
            .map_err(|_| LexError(format!("LIMIT {n}: not a row count"))),
        _ => Err(LexError("LIMIT needs a row count".into())),
    };
    let first = number(at + 1)?;
    let second = |i: usize| tokens.get(i);
    Ok(Some(match second(at + 2) {
        Some(t) if t.is_punct(",") => (first, number(at + 3)?),
        Some(t) if t.is_word("OFFSET") => (number(at + 3)?, first),
        _ => (0, first),
    }))
}

fn show(sql: &str, rest: &[Token]) -> Result<Statement, LexError> {
    // `… WHERE condition`: the condition, as written, applies to what the rest shows.
    if let Some(at) = rest.iter().position(|t| t.is_word("WHERE")) {
        let condition = sql[rest[at].span.end..].trim().to_string();
        let inner = show(sql, &rest[..at])?;
        return Ok(match inner {
            Statement::Show(s) if !condition.is_empty() => {
                Statement::Show(Show::Where(Box::new(s), condition))
            }
            Statement::Show(_) => return Err(LexError("WHERE needs a condition".into())),
            other => other,
        });
    }
    let mut i = 0;
    let mut full = false;
    let mut global = false;
    while let Some(t) = rest.get(i) {
        if t.is_word("FULL") {
            full = true;
        } else if t.is_word("GLOBAL") {
            global = true;
        } else if !(t.is_word("SESSION") || t.is_word("EXTENDED")) {
            break;
        }
        i += 1;
    }
    let word = |k: usize| {
        rest.get(i + k)
            .and_then(Token::word)
            .unwrap_or("")
            .to_ascii_uppercase()
    };
    let after = &rest[(i + 1).min(rest.len())..];
    let like = like_of(after);
    let from_db = || {
        after
            .iter()
            .position(|t| t.is_word("FROM") || t.is_word("IN"))
            .and_then(|at| after.get(at + 1))
            .and_then(Token::name)
            .map(str::to_string)
    };
    Ok(Statement::Show(match word(0).as_str() {
        "DATABASES" | "SCHEMAS" => Show::Databases { like },
        "TABLES" => Show::Tables {
            full,
            like,
            database: from_db(),
        },
        "COLUMNS" | "FIELDS" => {
            let at = after
                .iter()
                .position(|t| t.is_word("FROM") || t.is_word("IN"))
                .ok_or_else(|| LexError("SHOW COLUMNS needs FROM table".into()))?;
            let table = table_name(&after[at + 1..])
                .ok_or_else(|| LexError("SHOW COLUMNS needs FROM table".into()))?;
            Show::Columns { full, table, like }
        }
        "CREATE" if word(1) == "TABLE" => Show::CreateTable {
            table: table_name(&rest[i + 2..])
                .ok_or_else(|| LexError("SHOW CREATE TABLE needs a table name".into()))?,
        },
        "CREATE" if word(1) == "DATABASE" || word(1) == "SCHEMA" => Show::CreateDatabase {
            database: rest
                .get(i + 2)
                .and_then(Token::name)
                .unwrap_or("pinba")
                .to_string(),
        },
        "TABLE" if word(1) == "STATUS" => Show::TableStatus {
            like: like_of(&rest[i + 2..]),
        },
        "VARIABLES" => Show::Variables { like, global },
        "STATUS" => Show::Status { like, global },
        "OPEN" if word(1) == "TABLES" => Show::OpenTables {
            like: like_of(&rest[i + 2..]),
        },
        "WARNINGS" | "ERRORS" => Show::Warnings {
            errors: word(0) == "ERRORS",
            limit: limit_of(after)?,
        },
        "COUNT" if matches!(word(4).as_str(), "WARNINGS" | "ERRORS") => Show::Count {
            errors: word(4) == "ERRORS",
        },
        // What pinbad has none of: no rows, MariaDB 10.11's columns.
        "INDEX" | "INDEXES" | "KEYS" => empty(&[information_schema::SHOW_INDEX]),
        "ENGINES" => Show::Engines,
        "STORAGE" if word(1) == "ENGINES" => Show::Engines,
        "CHARSET" => Show::CharacterSets { like },
        "CHARACTER" if word(1) == "SET" => Show::CharacterSets {
            like: like_of(&rest[i + 2..]),
        },
        "COLLATION" => Show::Collations { like },
        "PROCESSLIST" => Show::Processlist { full },
        "TRIGGERS" => empty(&[information_schema::SHOW_TRIGGERS]),
        "PROCEDURE" | "FUNCTION" => empty(&[information_schema::SHOW_ROUTINES]),
        "EVENTS" => empty(&[information_schema::SHOW_EVENTS]),
        "PLUGINS" => empty(&[information_schema::SHOW_PLUGINS]),
        // pinbad neither writes a binary log nor replicates, and profiles nothing: MariaDB's
        // answers where it does none of these.
        "MASTER" | "BINLOG" if word(1) == "STATUS" => {
            computed(&[information_schema::SHOW_MASTER_STATUS])
        }
        "SLAVE" | "REPLICA" if word(1) == "STATUS" => {
            computed(&[information_schema::SHOW_SLAVE_STATUS])
        }
        "ALL" if matches!(word(1).as_str(), "SLAVES" | "REPLICAS") && word(2) == "STATUS" => {
            computed(&[
                information_schema::SHOW_ALL_SLAVES_STATUS_FIRST,
                information_schema::SHOW_SLAVE_STATUS,
                information_schema::SHOW_ALL_SLAVES_STATUS_LAST,
            ])
        }
        "PROFILES" => computed(&[information_schema::SHOW_PROFILES]),
        "BINARY" | "MASTER" if word(1) == "LOGS" => {
            return Ok(Statement::Refused(
                1381,
                "You are not using binary logging".into(),
            ))
        }
        other => {
            return Ok(Statement::Unsupported(format!(
                "SHOW {other} is not supported"
            )))
        }
    }))
}

/// A `SHOW` of nothing, declared as `information_schema`'s columns.
fn empty(columns: &'static [&'static [information_schema::Column]]) -> Show {
    Show::Empty {
        columns,
        computed: false,
    }
}

/// A `SHOW` of nothing, declared as a `SHOW`'s computed columns.
fn computed(columns: &'static [&'static [information_schema::Column]]) -> Show {
    Show::Empty {
        columns,
        computed: true,
    }
}

fn drop_tables(rest: &[Token]) -> Result<Statement, LexError> {
    let mut i = 0;
    let mut if_exists = false;
    if rest.first().is_some_and(|t| t.is_word("IF"))
        && rest.get(1).is_some_and(|t| t.is_word("EXISTS"))
    {
        if_exists = true;
        i = 2;
    }
    let mut tables = Vec::new();
    while i < rest.len() {
        let t = &rest[i..];
        if t[0].is_word("RESTRICT") || t[0].is_word("CASCADE") {
            break;
        }
        let name = table_name(t).ok_or_else(|| LexError("DROP TABLE needs table names".into()))?;
        tables.push(name);
        i += if t.get(1).is_some_and(|x| x.is_punct(".")) {
            3
        } else {
            1
        };
        if rest.get(i).is_some_and(|x| x.is_punct(",")) {
            i += 1;
        }
    }
    if tables.is_empty() {
        return Err(LexError("DROP TABLE needs table names".into()));
    }
    Ok(Statement::DropTables { if_exists, tables })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A query of several statements is cut at each `;` outside literals, quoted names and
    /// comments; without the capability it is a syntax error.
    #[test]
    fn several_statements_are_cut_at_their_semicolons() {
        assert_eq!(
            split("SELECT ';' AS `a;b`; /* ; */ SELECT 2 -- ;\n ; SHOW TABLES;  # end;\n"),
            [
                "SELECT ';' AS `a;b`",
                " /* ; */ SELECT 2 -- ;\n ",
                " SHOW TABLES"
            ]
        );
        assert_eq!(split("SELECT 1;;SELECT 2"), ["SELECT 1", "", "SELECT 2"]);
        assert_eq!(split("SELECT 1;"), ["SELECT 1"]);
        assert_eq!(split("SELECT 'open; SELECT 2"), ["SELECT 'open; SELECT 2"]);
        assert!(classify("SELECT 1;").is_ok());
        let e = classify("SELECT 1; SELECT 2").unwrap_err();
        assert!(e.0.contains("CLIENT_MULTI_STATEMENTS"), "{e:?}");
    }

    /// MySQL's diagnostics outlive a statement that reads no table; `SHOW COUNT(*) WARNINGS`
    /// and `DO` are read.
    #[test]
    fn diagnostics_statements_are_read() {
        assert!(reads_no_table("SELECT @@warning_count"));
        assert!(reads_no_table("set @a = 1"));
        assert!(reads_no_table("DO 1/0"));
        assert!(!reads_no_table("SELECT COUNT(*) FROM request"));
        assert!(!reads_no_table("SELECT (SELECT 1 FROM info)"));
        assert!(!reads_no_table("SHOW TABLES"));
        assert_eq!(
            classify("SHOW COUNT(*) WARNINGS"),
            Ok(Statement::Show(Show::Count { errors: false }))
        );
        assert_eq!(
            classify("show count ( * ) errors"),
            Ok(Statement::Show(Show::Count { errors: true }))
        );
        assert_eq!(classify("DO 1/0, 2"), Ok(Statement::Do("1/0, 2".into())));
    }

    /// `WITH ROLLUP` answers as MariaDB 10.11 does over the same rows (its answers written
    /// here): each level's super-aggregate row after the groups it sums, the grand total last,
    /// the NULL group first; HAVING on every row; none over no rows; the shapes it does not take
    /// refused.
    #[test]
    fn with_rollup_answers_as_mariadb() {
        let c = rusqlite::Connection::open_in_memory().unwrap();
        // String literals carry pinbad's collation.
        c.create_collation(
            super::super::collation::NAME,
            super::super::collation::compare,
        )
        .unwrap();
        c.execute_batch(
            "CREATE TABLE t (a TEXT, b INTEGER, v REAL);
             INSERT INTO t VALUES ('x', 1, 1.5), ('x', 2, 2.5), ('y', 1, 4), (NULL, 1, 8), ('z', 3, 1);",
        )
        .unwrap();
        let rows = |sql: &str| -> Vec<String> {
            let Statement::Query(q) = classify(sql).unwrap() else {
                panic!("{sql}")
            };
            let mut st = c.prepare(&q).unwrap();
            let n = st.column_count();
            st.query_map([], |r| {
                Ok((0..n)
                    .map(|i| match r.get_ref(i).unwrap() {
                        rusqlite::types::ValueRef::Null => "NULL".to_string(),
                        rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                        rusqlite::types::ValueRef::Real(v) => v.to_string(),
                        rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into(),
                        rusqlite::types::ValueRef::Blob(_) => "blob".into(),
                    })
                    .collect::<Vec<_>>()
                    .join(" "))
            })
            .unwrap()
            .map(Result::unwrap)
            .collect()
        };
        assert_eq!(
            rows("SELECT a, b, COUNT(*), SUM(v) FROM t GROUP BY a, b WITH ROLLUP"),
            [
                "NULL 1 1 8",
                "NULL NULL 1 8",
                "x 1 1 1.5",
                "x 2 1 2.5",
                "x NULL 2 4",
                "y 1 1 4",
                "y NULL 1 4",
                "z 3 1 1",
                "z NULL 1 1",
                "NULL NULL 5 17"
            ]
        );
        assert_eq!(
            rows("SELECT a, COUNT(*) c FROM t GROUP BY a WITH ROLLUP HAVING c > 1"),
            ["x 2", "NULL 5"]
        );
        assert!(rows("SELECT a, COUNT(*) FROM t WHERE b > 9 GROUP BY a WITH ROLLUP").is_empty());
        // By an expression, an alias of one, or a position.
        assert_eq!(
            rows("SELECT b + 1, COUNT(*) FROM t GROUP BY b + 1 WITH ROLLUP"),
            ["2 3", "3 1", "4 1", "NULL 5"]
        );
        assert_eq!(
            rows("SELECT b * 10 AS k, COUNT(*) FROM t GROUP BY k WITH ROLLUP"),
            ["10 3", "20 1", "30 1", "NULL 5"]
        );
        assert_eq!(
            rows("SELECT a, b * 2 AS d, COUNT(*) FROM t GROUP BY 1, 2 WITH ROLLUP"),
            [
                "NULL 2 1",
                "NULL NULL 1",
                "x 2 1",
                "x 4 1",
                "x NULL 2",
                "y 2 1",
                "y NULL 1",
                "z 6 1",
                "z NULL 1",
                "NULL NULL 5"
            ]
        );
        let Statement::Query(q) =
            classify("SELECT a AS `A`, COUNT(*) FROM t GROUP BY a WITH ROLLUP").unwrap()
        else {
            panic!()
        };
        let st = c.prepare(&q).unwrap();
        assert_eq!(st.column_names(), ["A", "COUNT(*)"]);
        for refused in [
            "SELECT a, COUNT(*) FROM t GROUP BY a WITH ROLLUP ORDER BY a",
            "SELECT a, b, COUNT(*) FROM t GROUP BY a WITH ROLLUP",
            "SELECT DISTINCT a FROM t GROUP BY a WITH ROLLUP",
            "SELECT * FROM t GROUP BY a WITH ROLLUP",
        ] {
            assert!(
                matches!(classify(refused).unwrap(), Statement::Unsupported(_)),
                "{refused}"
            );
        }
    }

    /// A `UNION [DISTINCT]` keeps the first of rows the collation finds equal, as MySQL does, at
    /// any level; what follows its last one stays outside (`UNION ALL`, `ORDER BY`, `LIMIT`);
    /// the client's column names are the first operand's; a recursive CTE is left as it is.
    #[test]
    fn unions_keep_the_first_of_equal_rows() {
        let c = rusqlite::Connection::open_in_memory().unwrap();
        c.create_collation(
            super::super::collation::NAME,
            super::super::collation::compare,
        )
        .unwrap();
        let rows = |sql: &str| -> Vec<String> {
            let Statement::Query(q) = classify(sql).unwrap() else {
                panic!("{sql}")
            };
            let mut st = c.prepare(&q).unwrap_or_else(|e| panic!("{q}: {e}"));
            let rows = st
                .query_map([], |r| r.get::<_, rusqlite::types::Value>(0))
                .unwrap();
            rows.map(|v| match v.unwrap() {
                rusqlite::types::Value::Text(t) => t,
                other => format!("{other:?}"),
            })
            .collect()
        };
        assert_eq!(rows("SELECT 'A' UNION SELECT 'a'"), ["A"]);
        assert_eq!(rows("SELECT 'A' UNION DISTINCT SELECT 'a '"), ["A"]);
        assert_eq!(
            rows("SELECT 'b' UNION ALL SELECT 'B' UNION SELECT 'a' UNION ALL SELECT 'A'"),
            ["b", "a", "A"]
        );
        assert_eq!(
            rows("SELECT x FROM (SELECT 'A' AS x UNION SELECT 'a ' UNION SELECT 'c') t ORDER BY x"),
            ["A", "c"]
        );
        assert_eq!(
            rows("SELECT 'A' AS n UNION SELECT 'a' UNION SELECT 'b' ORDER BY n DESC LIMIT 1, 1"),
            ["A"]
        );
        assert_eq!(
            rows("SELECT 2 IN (SELECT 1 UNION SELECT 2)"),
            ["Integer(1)"]
        );
        assert_eq!(
            rows("WITH c AS (SELECT 'A' AS v UNION SELECT 'a') SELECT v FROM c UNION SELECT 'z'"),
            ["A", "z"]
        );
        assert_eq!(
            rows(
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r WHERE n < 3) \
                 SELECT COUNT(*) FROM r"
            ),
            ["Integer(3)"]
        );
        let Statement::Query(q) = classify("SELECT 7 - 2, 'x' UNION SELECT 1, 'y'").unwrap() else {
            panic!()
        };
        let st = c.prepare(&q).unwrap();
        assert_eq!(st.column_names()[0], "7 - 2", "{q}");
    }

    /// `x op ALL/ANY (subquery)` gives MySQL's three values: NULL rows, a NULL `x` and an empty
    /// subquery included (the differential test checks the same against MariaDB).
    #[test]
    fn comparisons_with_all_and_any_answer_as_mysql() {
        let c = rusqlite::Connection::open_in_memory().unwrap();
        let one = |sql: &str| -> Option<i64> {
            let Statement::Query(q) = classify(sql).unwrap() else {
                panic!("{sql}")
            };
            c.query_row(&q, [], |r| r.get(0)).unwrap()
        };
        assert_eq!(one("SELECT 3 > ALL (SELECT 1 UNION SELECT 2)"), Some(1));
        assert_eq!(one("SELECT 2 > ALL (SELECT 1 UNION SELECT 2)"), Some(0));
        assert_eq!(one("SELECT 3 > ALL (SELECT 1 UNION SELECT NULL)"), None);
        assert_eq!(one("SELECT 0 > ALL (SELECT 1 UNION SELECT NULL)"), Some(0));
        assert_eq!(one("SELECT NULL > ALL (SELECT 1 WHERE 0)"), Some(1));
        assert_eq!(one("SELECT NULL > ALL (SELECT 1)"), None);
        assert_eq!(one("SELECT 3 < ANY (SELECT 1 UNION SELECT 5)"), Some(1));
        assert_eq!(one("SELECT 3 < SOME (SELECT 1 UNION SELECT NULL)"), None);
        assert_eq!(one("SELECT 9 < ANY (SELECT 1 UNION SELECT 5)"), Some(0));
        assert_eq!(one("SELECT NULL < ANY (SELECT 1 WHERE 0)"), Some(0));
        assert_eq!(
            one("SELECT 1 + 1 <= ALL (SELECT 2) AND NOT 1 >= ANY (SELECT 2)"),
            Some(1)
        );
        assert_eq!(one("SELECT 2 <> ANY (SELECT 2 UNION SELECT 3)"), Some(1));
        // An aggregate stays outside, compared with the subquery's summaries.
        c.execute_batch("CREATE TABLE t(a); INSERT INTO t VALUES (1), (1), (2), (NULL);")
            .unwrap();
        let aggregates = [
            ("COUNT(*) > ALL (SELECT 1 UNION SELECT 3)", Some(1)),
            ("COUNT(*) > ALL (SELECT 1 UNION SELECT 4)", Some(0)),
            ("COUNT(*) > ALL (SELECT 1 UNION SELECT NULL)", None),
            ("COUNT(*) > ALL (SELECT a FROM t WHERE a > 5)", Some(1)),
            ("COUNT(*) = ALL (SELECT 4 UNION SELECT 4)", Some(1)),
            ("COUNT(*) = ALL (SELECT 4 UNION SELECT 5)", Some(0)),
            ("SUM(a) < ANY (SELECT 1 UNION SELECT 5)", Some(1)),
            ("SUM(a) < ANY (SELECT 1 UNION SELECT NULL)", None),
            ("SUM(a) >= SOME (SELECT 5 UNION SELECT 9)", Some(0)),
            ("MAX(a) <> ANY (SELECT 2 UNION SELECT 2)", Some(0)),
            ("MAX(a) <> ANY (SELECT 2 UNION SELECT 3)", Some(1)),
            ("SUM(a) < ANY (SELECT 1 WHERE 0)", Some(0)),
            ("MIN(a) + NULL > ALL (SELECT 1)", None),
        ];
        for (expr, want) in aggregates {
            assert_eq!(one(&format!("SELECT {expr} FROM t")), want, "{expr}");
        }
        // A list is not a subquery.
        assert!(classify("SELECT 1 > ALL (1, 2)").is_err());
        assert!(classify("SELECT > ALL (SELECT 1)").is_err());
    }

    #[test]
    fn statements_are_classified() {
        use Statement::*;
        assert_eq!(classify("  ").unwrap(), Empty);
        assert_eq!(
            classify("SET NAMES utf8mb4").unwrap(),
            Set(vec![super::Set::Names {
                charset: "utf8mb4".into(),
                collation: None,
                names: true
            }])
        );
        assert_eq!(
            classify(
                "/*!40101 SET @a := (1 + 2), SESSION sql_mode = 'x,y', @@global.time_zone = \
                 DEFAULT, autocommit=ON, NAMES 'utf8' COLLATE utf8_bin */"
            )
            .unwrap(),
            Set(vec![
                super::Set::User {
                    name: "a".into(),
                    value: SetValue::Expr("(1 + 2)".into())
                },
                super::Set::System {
                    name: "sql_mode".into(),
                    global: false,
                    value: SetValue::Word("x,y".into())
                },
                super::Set::System {
                    name: "time_zone".into(),
                    global: true,
                    value: SetValue::Default
                },
                super::Set::System {
                    name: "autocommit".into(),
                    global: false,
                    value: SetValue::Word("ON".into())
                },
                super::Set::Names {
                    charset: "utf8".into(),
                    collation: Some("utf8_bin".into()),
                    names: true
                },
            ])
        );
        assert_eq!(
            classify("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED").unwrap(),
            Ignored
        );
        assert!(matches!(
            classify("SET PASSWORD = 'x'").unwrap(),
            Unsupported(_)
        ));
        assert_eq!(classify("use `pinba`").unwrap(), Use("pinba".into()));
        assert_eq!(
            classify("DESCRIBE pinba.request").unwrap(),
            Describe {
                table: "request".into()
            }
        );
        assert_eq!(
            classify("SHOW FULL COLUMNS FROM `info` FROM pinba LIKE 'req%'").unwrap(),
            Show(super::Show::Columns {
                full: true,
                table: "info".into(),
                like: Some("req%".into())
            })
        );
        assert_eq!(
            classify("show tables").unwrap(),
            Show(super::Show::Tables {
                full: false,
                like: None,
                database: None
            })
        );
        assert_eq!(
            classify("DROP TABLE IF EXISTS a, pinba.b").unwrap(),
            DropTables {
                if_exists: true,
                tables: vec!["a".into(), "b".into()]
            }
        );
        assert!(
            matches!(classify("INSERT INTO t VALUES (1)").unwrap(), Write(v) if v == "INSERT INTO")
        );
        assert!(matches!(
            classify("CREATE TABLE t (a int) ENGINE=PINBA").unwrap(),
            CreateTable(_)
        ));
        assert!(matches!(classify("KILL 3").unwrap(), Unsupported(_)));
        assert!(classify("SELECT 1; SELECT 2").is_err());
        assert!(classify("SELECT 'open").is_err());
        // MariaDB's `GROUP BY a DESC` is read (`dialect::mysql_clauses`).
        assert!(matches!(
            classify("SELECT a FROM t GROUP BY a DESC").unwrap(),
            Query(_)
        ));
    }
}
