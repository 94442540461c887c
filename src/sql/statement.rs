//! A MySQL statement as the SQL front end sees it: what kind it is ([`Statement`]) and, for a
//! query, the same query in SQLite's dialect ([`to_sqlite`]).
//!
//! Pure: text in, text out. MySQL and SQLite share most of their SELECT syntax; what differs and
//! what pinba_engine's users write is rewritten here, token by token, outside literals: strings
//! in single or double quotes with backslash escapes (MySQL reads `"x"` as a string), `#`
//! comments, `IF(…)`, `LEFT(…)`/`RIGHT(…)` (keywords in SQLite), `CONVERT(x, T)` and MySQL's
//! `CAST` types, `RLIKE`, `DIV`, `@@variables`, `GROUP_CONCAT(… SEPARATOR s)`, index hints and
//! `SELECT` modifiers. The functions themselves are `functions`' (registered with SQLite). The
//! whitespace between tokens is kept, so that an expression's column name reads as written.

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
    /// Session chatter accepted and ignored: `SET …`, `BEGIN`, `COMMIT`, `ROLLBACK`, …
    Ignored,
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
    Variables {
        like: Option<String>,
    },
    Status {
        like: Option<String>,
    },
    /// `SHOW [STORAGE] ENGINES`: `information_schema.ENGINES`.
    Engines,
    /// `SHOW WARNINGS`, `SHOW ERRORS`, `SHOW INDEX FROM t`, …: an empty answer
    /// with the columns MySQL gives them.
    Empty(&'static [&'static str]),
    CreateDatabase {
        database: String,
    },
}

/// A lexical token, with whether whitespace (or a comment) came before it.
#[derive(Clone, Debug, PartialEq)]
struct Token {
    kind: Kind,
    space_before: bool,
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
        out.push(Token {
            kind,
            space_before: space,
        });
        space = false;
    }
    while out.last().is_some_and(|t| t.is_punct(";")) {
        out.pop();
    }
    if out.iter().any(|t| t.is_punct(";")) {
        return Err(LexError(
            "one statement at a time: several statements separated by `;` are not run".into(),
        ));
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

/// Classifies one statement.
pub fn classify(sql: &str) -> Result<Statement, LexError> {
    let tokens = lex(sql)?;
    let Some(first) = tokens.first() else {
        return Ok(Statement::Empty);
    };
    let verb = match first.word() {
        Some(w) => w.to_ascii_uppercase(),
        None if first.is_punct("(") => return to_sqlite(&tokens).map(Statement::Query),
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
        "SELECT" | "WITH" | "VALUES" => Statement::Query(to_sqlite(&tokens)?),
        "SHOW" => show(&tokens[1..])?,
        "DESCRIBE" | "DESC" | "EXPLAIN" => {
            let rest = &tokens[1..];
            if rest.first().is_some_and(|t| {
                ["SELECT", "WITH", "FORMAT", "EXTENDED", "ANALYZE"]
                    .iter()
                    .any(|w| t.is_word(w))
            }) {
                Statement::Unsupported("EXPLAIN of a query is not supported".into())
            } else {
                Statement::Describe {
                    table: table_name(rest)
                        .ok_or_else(|| LexError(format!("{verb} needs a table name")))?,
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
        "SET" | "BEGIN" | "COMMIT" | "ROLLBACK" | "SAVEPOINT" | "RELEASE" => Statement::Ignored,
        "START" if second == "TRANSACTION" => Statement::Ignored,
        "DO" => Statement::Ignored,
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

fn show(rest: &[Token]) -> Result<Statement, LexError> {
    let mut i = 0;
    let mut full = false;
    while let Some(t) = rest.get(i) {
        if t.is_word("FULL") {
            full = true;
        } else if !(t.is_word("GLOBAL") || t.is_word("SESSION") || t.is_word("EXTENDED")) {
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
        "VARIABLES" => Show::Variables { like },
        "STATUS" => Show::Status { like },
        "WARNINGS" | "ERRORS" => Show::Empty(&["Level", "Code", "Message"]),
        "INDEX" | "INDEXES" | "KEYS" => Show::Empty(&[
            "Table",
            "Non_unique",
            "Key_name",
            "Seq_in_index",
            "Column_name",
            "Collation",
            "Cardinality",
            "Sub_part",
            "Packed",
            "Null",
            "Index_type",
            "Comment",
            "Index_comment",
        ]),
        "ENGINES" => Show::Engines,
        "STORAGE" if word(1) == "ENGINES" => Show::Engines,
        "TRIGGERS" => Show::Empty(&["Trigger", "Event", "Table", "Statement", "Timing"]),
        "PROCEDURE" | "FUNCTION" => Show::Empty(&["Db", "Name", "Type", "Definer"]),
        "PLUGINS" => Show::Empty(&["Name", "Status", "Type", "Library", "License"]),
        other => {
            return Ok(Statement::Unsupported(format!(
                "SHOW {other} is not supported"
            )))
        }
    }))
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

/// `SELECT` modifiers MySQL accepts and SQLite has no use for.
const DROPPED_MODIFIERS: &[&str] = &[
    "SQL_CALC_FOUND_ROWS",
    "SQL_NO_CACHE",
    "SQL_CACHE",
    "HIGH_PRIORITY",
    "STRAIGHT_JOIN",
    "SQL_SMALL_RESULT",
    "SQL_BIG_RESULT",
    "SQL_BUFFER_RESULT",
];

/// Functions renamed on the way: MySQL's name, ours (registered by `functions`, or SQLite's).
const RENAMED: &[(&str, &str)] = &[
    ("IF", "iif"),
    ("LEFT", "mysql_left"),
    ("RIGHT", "mysql_right"),
    ("ISNULL", "mysql_isnull"),
    ("LCASE", "lower"),
    ("UCASE", "upper"),
    ("CHAR_LENGTH", "length"),
    ("CHARACTER_LENGTH", "length"),
    ("CURRENT_TIMESTAMP", "now"),
    ("CURRENT_DATE", "curdate"),
    ("LOCALTIME", "now"),
    ("LOCALTIMESTAMP", "now"),
    ("SYSDATE", "now"),
    ("MOD", "mysql_mod"),
    ("DATABASE", "database"),
    ("SCHEMA", "database"),
];

/// MySQL's `CAST` types as SQLite's.
fn cast_type(words: &[String]) -> &'static str {
    match words.first().map(String::as_str).unwrap_or("") {
        "SIGNED" | "UNSIGNED" | "INT" | "INTEGER" | "BIGINT" => "INTEGER",
        "DECIMAL" | "DOUBLE" | "FLOAT" | "REAL" | "NUMERIC" => "REAL",
        "BINARY" | "BLOB" => "BLOB",
        _ => "TEXT",
    }
}

/// A query's tokens as SQLite text.
fn to_sqlite(tokens: &[Token]) -> Result<String, LexError> {
    let mut out = String::with_capacity(tokens.len() * 8);
    let mut i = 0;
    let mut depth_of_separator: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    while i < tokens.len() {
        let t = &tokens[i];
        let next_is_paren = tokens
            .get(i + 1)
            .is_some_and(|n| n.is_punct("(") && !n.space_before);
        let next_is_paren_any = tokens.get(i + 1).is_some_and(|n| n.is_punct("("));
        let emit = |s: &str, space: bool, out: &mut String| {
            if space && !out.is_empty() {
                out.push(' ');
            }
            out.push_str(s);
        };
        match &t.kind {
            Kind::Word(w) => {
                let up = w.to_ascii_uppercase();
                if DROPPED_MODIFIERS.contains(&up.as_str()) {
                    i += 1;
                    continue;
                }
                // Index hints: `USE|FORCE|IGNORE INDEX|KEY [FOR …] (…)`.
                if ["USE", "FORCE", "IGNORE"].contains(&up.as_str())
                    && tokens
                        .get(i + 1)
                        .is_some_and(|n| n.is_word("INDEX") || n.is_word("KEY"))
                {
                    let mut j = i + 2;
                    while j < tokens.len() && !tokens[j].is_punct("(") {
                        j += 1;
                    }
                    j = skip_group(tokens, j);
                    i = j;
                    continue;
                }
                // `LOCK IN SHARE MODE`, `FOR UPDATE`: nothing to lock.
                if up == "LOCK" && tokens.get(i + 1).is_some_and(|n| n.is_word("IN")) {
                    i += 4;
                    continue;
                }
                if up == "FOR"
                    && tokens
                        .get(i + 1)
                        .is_some_and(|n| n.is_word("UPDATE") || n.is_word("SHARE"))
                {
                    i += 2;
                    continue;
                }
                if up == "RLIKE" {
                    emit("REGEXP", t.space_before, &mut out);
                    i += 1;
                    continue;
                }
                if up == "DIV" {
                    emit("/", t.space_before, &mut out);
                    i += 1;
                    continue;
                }
                if up == "SEPARATOR" && !depth_of_separator.is_empty() {
                    emit(",", false, &mut out);
                    i += 1;
                    continue;
                }
                if (up == "CONVERT" || up == "CAST") && next_is_paren_any {
                    let (text, next) = convert_or_cast(tokens, i, &up)?;
                    emit(&text, t.space_before, &mut out);
                    i = next;
                    continue;
                }
                if up == "GROUP_CONCAT" && next_is_paren_any {
                    depth_of_separator.push(depth + 1);
                }
                if let Some((_, ours)) = RENAMED.iter().find(|(m, _)| *m == up) {
                    // The same name keeps the client's spelling (a column is named as written).
                    let ours = if ours.eq_ignore_ascii_case(w) {
                        w.as_str()
                    } else {
                        ours
                    };
                    if next_is_paren || (up == "IF" && next_is_paren_any) {
                        emit(ours, t.space_before, &mut out);
                        i += 1;
                        continue;
                    }
                    // `CURRENT_TIMESTAMP` and its kin without parentheses.
                    if [
                        "CURRENT_TIMESTAMP",
                        "CURRENT_DATE",
                        "LOCALTIME",
                        "LOCALTIMESTAMP",
                    ]
                    .contains(&up.as_str())
                    {
                        emit(&format!("{ours}()"), t.space_before, &mut out);
                        i += 1;
                        continue;
                    }
                }
                emit(w, t.space_before, &mut out);
            }
            Kind::Quoted(q) => emit(&quote_ident(q), t.space_before, &mut out),
            Kind::Str(s) => emit(&quote(s), t.space_before, &mut out),
            Kind::Number(n) => emit(n, t.space_before, &mut out),
            Kind::SysVar(v) => emit(&format!("sysvar({})", quote(v)), t.space_before, &mut out),
            Kind::UserVar(v) => {
                return Err(LexError(format!("user variables (@{v}) are not supported")))
            }
            Kind::Punct(p) => {
                if p == "(" {
                    depth += 1;
                } else if p == ")" {
                    if depth_of_separator.last() == Some(&depth) {
                        depth_of_separator.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                let p = match p.as_str() {
                    "&&" => "AND",
                    "<=>" => "IS",
                    p => p,
                };
                emit(p, t.space_before, &mut out);
            }
        }
        i += 1;
    }
    Ok(out)
}

/// The index after the parenthesized group that starts at `at` (`tokens[at]` is `(`).
fn skip_group(tokens: &[Token], at: usize) -> usize {
    let mut depth = 0usize;
    let mut j = at;
    while j < tokens.len() {
        if tokens[j].is_punct("(") {
            depth += 1;
        } else if tokens[j].is_punct(")") {
            depth -= 1;
            if depth == 0 {
                return j + 1;
            }
        }
        j += 1;
    }
    j
}

/// `CONVERT(x, T)`, `CONVERT(x USING cs)` or `CAST(x AS T)` starting at `at`: SQLite's `CAST`
/// (or the bare expression), and the index after it.
fn convert_or_cast(tokens: &[Token], at: usize, which: &str) -> Result<(String, usize), LexError> {
    let open = at + 1;
    let end = skip_group(tokens, open);
    let inner = &tokens[open + 1..end.saturating_sub(1).max(open + 1)];
    // The top-level separator: `,` or `USING` (CONVERT), `AS` (CAST).
    let mut depth = 0usize;
    let mut split = None;
    for (k, t) in inner.iter().enumerate() {
        if t.is_punct("(") {
            depth += 1;
        } else if t.is_punct(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0
            && ((which == "CONVERT" && (t.is_punct(",") || t.is_word("USING")))
                || (which == "CAST" && t.is_word("AS")))
        {
            split = Some(k);
            break;
        }
    }
    let Some(k) = split else {
        return Err(LexError(format!("{which}(…) without a type")));
    };
    let expr = to_sqlite(&inner[..k])?;
    if inner[k].is_word("USING") {
        return Ok((format!("({expr})"), end));
    }
    let words: Vec<String> = inner[k + 1..]
        .iter()
        .filter_map(Token::word)
        .map(str::to_ascii_uppercase)
        .collect();
    Ok((format!("CAST({expr} AS {})", cast_type(&words)), end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(sql: &str) -> String {
        match classify(sql).unwrap() {
            Statement::Query(q) => q,
            other => panic!("{sql}: {other:?}"),
        }
    }

    #[test]
    fn strings_and_comments_become_sqlite_literals() {
        assert_eq!(
            query(r#"SELECT "it\"s", 'a\'b', 'x''y' # comment"#),
            "SELECT 'it\"s', 'a''b', 'x''y'"
        );
        assert_eq!(query("select /* c */ 1 -- tail\n + 2;"), "select 1 + 2");
        assert_eq!(query(r"SELECT 'a\\b', 'c\%'"), r"SELECT 'a\b', 'c\%'");
    }

    #[test]
    fn mysql_functions_are_renamed_where_sqlite_differs() {
        assert_eq!(
            query("SELECT IF(a > 1, 'y', 'n'), LEFT(s, 3), RIGHT(s,2) FROM t LEFT JOIN u ON 1"),
            "SELECT iif(a > 1, 'y', 'n'), mysql_left(s, 3), mysql_right(s,2) FROM t LEFT JOIN u ON 1"
        );
        assert_eq!(
            query("SELECT CAST(TRIM(CONVERT(p90, CHAR)) AS DOUBLE), CAST(x AS SIGNED)"),
            "SELECT CAST(TRIM(CAST(p90 AS TEXT)) AS REAL), CAST(x AS INTEGER)"
        );
        assert_eq!(
            query("SELECT @@version, @@session.time_zone, DATABASE()"),
            "SELECT sysvar('version'), sysvar('time_zone'), DATABASE()"
        );
        assert_eq!(
            query("SELECT SQL_CALC_FOUND_ROWS a DIV 2 FROM t FORCE INDEX (k) WHERE s RLIKE '^a'"),
            "SELECT a / 2 FROM t WHERE s REGEXP '^a'"
        );
        assert_eq!(
            query("SELECT GROUP_CONCAT(a SEPARATOR ';') , CURRENT_TIMESTAMP"),
            "SELECT GROUP_CONCAT(a, ';') , now()"
        );
    }

    #[test]
    fn statements_are_classified() {
        use Statement::*;
        assert_eq!(classify("  ").unwrap(), Empty);
        assert_eq!(classify("SET NAMES utf8mb4").unwrap(), Ignored);
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
        assert!(classify("SELECT @x").is_err());
    }
}
