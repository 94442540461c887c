//! A MySQL statement as the SQL front end sees it: what kind it is ([`Statement`]) and, for a
//! query, the same query in SQLite's dialect, made to give MySQL's answers.
//!
//! Pure: text in, text out. A query goes to `translate` first, which rewrites its syntax tree
//! (sqlparser's, in MySQL's dialect); what it declines (`WITH ROLLUP`, what sqlparser cannot
//! parse) is rewritten here. MySQL and SQLite share most of their SELECT syntax; what differs is
//! rewritten here, token by token, outside literals: strings in single or double quotes with
//! backslash escapes (MySQL reads `"x"` as a string), `b'0101'`, `#` comments, `IF(…)`,
//! `LEFT(…)`/`RIGHT(…)` (keywords in SQLite), `CONVERT(x, T)` and MySQL's `CAST` types, `RLIKE`,
//! `@@variables`, `GROUP_CONCAT(…)`, index hints and `SELECT` modifiers; `/` divides as MySQL's
//! decimals do; a string literal compares as MySQL's default collation does (case-insensitively).
//! The operators SQLite lacks or evaluates otherwise (`DIV`, `%`, `XOR`, `^`, `± INTERVAL`) become
//! calls over their operands, found by MySQL's precedence ([`operators`]). The functions
//! themselves are `functions`', `dates`' and `aggregates'` (registered with SQLite). The
//! whitespace between tokens is kept, and a select list item the rewrite changed is named by the
//! text the client wrote, as MySQL names it.
//!
//! What a text rewrite cannot see: the types of expressions. SQLite has no DECIMAL, so a decimal
//! result is a double; `typing` reads MySQL's types off the statement's syntax tree, and a
//! DECIMAL that a call turns into text (`CONCAT(7 / 2, '')`) is written with its scale here
//! ([`decimals_as_text`]), one in the result by the session.

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
    /// `SHOW WARNINGS` (`errors`: `SHOW ERRORS`): what the session's last statement left.
    Warnings {
        errors: bool,
    },
    /// `SHOW INDEX FROM t`, …: an empty answer
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

/// Classifies one statement.
pub fn classify(sql: &str) -> Result<Statement, LexError> {
    classify_typed(sql).map(|(s, _)| s)
}

/// [`classify`], with a query's result columns' DECIMAL scales (`typing`'s `columns`: empty
/// for what is not a query, or where they are not known).
pub fn classify_typed(sql: &str) -> Result<(Statement, Vec<Option<u8>>), LexError> {
    let mut decimals = Vec::new();
    let statement = classify_into(sql, &mut decimals)?;
    Ok((statement, decimals))
}

fn classify_into(sql: &str, decimals: &mut Vec<Option<u8>>) -> Result<Statement, LexError> {
    let tokens = lex(sql)?;
    let Some(first) = tokens.first() else {
        return Ok(Statement::Empty);
    };
    let verb = match first.word() {
        Some(w) => w.to_ascii_uppercase(),
        None if first.is_punct("(") => return query(sql, tokens, decimals),
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
        "SELECT" | "WITH" | "VALUES" => query(sql, tokens, decimals)?,
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

/// A query's tokens as SQLite's text, or why it cannot run; its result columns' DECIMAL scales
/// go to `decimals`.
fn query(
    sql: &str,
    tokens: Vec<Token>,
    decimals: &mut Vec<Option<u8>>,
) -> Result<Statement, LexError> {
    match super::translate::query(sql) {
        Some(Ok((text, columns))) => {
            *decimals = columns;
            return Ok(Statement::Query(text));
        }
        Some(Err(why)) => return Ok(Statement::Unsupported(why)),
        None => {}
    }
    // The DECIMALs, in the result and where they become text, in whichever part of the query.
    let typed = super::typing::typing(sql);
    *decimals = typed.columns;
    query_tokens(sql, tokens, &typed.to_text)
}

/// [`query`] by the token rewrite: what `translate` declines.
fn query_tokens(
    sql: &str,
    tokens: Vec<Token>,
    calls: &[(usize, Vec<Option<u8>>)],
) -> Result<Statement, LexError> {
    if let Some(at) = tokens
        .windows(2)
        .position(|w| w[0].is_word("WITH") && w[1].is_word("ROLLUP"))
    {
        return Ok(match rollup(sql, &tokens, at)? {
            Ok(query) => Statement::Query(query),
            Err(why) => Statement::Unsupported(why),
        });
    }
    let (tokens, first_operand) = distinct_unions(tokens);
    let rewrite = |part: &[Token]| to_sqlite(&operators(decimals_as_text(part.to_vec(), calls))?);
    let items = match first_operand {
        // The client's names are the first operand's, inside the wrapper.
        Some(at) => select_items(&tokens[at..]).map(|items| {
            items
                .into_iter()
                .map(|r| r.start + at..r.end + at)
                .collect()
        }),
        None => select_items(&tokens),
    };
    let Some(items): Option<Vec<std::ops::Range<usize>>> = items else {
        return rewrite(&tokens).map(Statement::Query);
    };
    // The select list item by item: one that the rewrite changed is named as MySQL names it,
    // by the text the client wrote (`7 / 2`, not `7 *1.0/ 2`).
    let mut out = rewrite(&tokens[..items[0].start])?;
    for (k, item) in items.iter().enumerate() {
        if k > 0 {
            if tokens[item.start - 1].space_before {
                out.push(' ');
            }
            out.push(',');
        }
        let part = &tokens[item.clone()];
        let text = match bit_string(sql, part) {
            Some(bytes) => bytes,
            None => rewrite(part)?,
        };
        if part[0].space_before {
            out.push(' ');
        }
        out.push_str(&text);
        // As written, without its comments and with one space where there was any.
        let mut written = String::new();
        for t in part.iter().filter(|t| t.span != INSERTED) {
            if t.space_before && !written.is_empty() {
                written.push(' ');
            }
            written.push_str(&sql[t.span.clone()]);
        }
        if !has_alias(part) && text.trim_start() != written {
            out.push_str(&format!(" AS {}", quote_ident(&written)));
        }
    }
    let end = items[items.len() - 1].end;
    if tokens.get(end).is_some_and(|t| t.space_before) {
        out.push(' ');
    }
    out.push_str(&rewrite(&tokens[end..])?);
    Ok(Statement::Query(out))
}

/// The name of the derived table [`distinct_unions`] makes.
const UNION_TABLE: &str = "mysql_union";

/// The span of a token [`distinct_unions`] put in: not the client's text, so a select list
/// item holding one is still named by what the client wrote, without it.
const INSERTED: std::ops::Range<usize> = usize::MAX..usize::MAX;

/// MySQL's `UNION` keeps, of rows its collation finds equal (`'A'` and `'a'`), the first it
/// meets; SQLite's keeps the last (its index of the rows seen replaces an equal one), where its
/// `SELECT DISTINCT` keeps the first, as MySQL does. So at every level of the statement (the
/// statement, a subquery, a derived table, a CTE's body) a compound with a `UNION [DISTINCT]`
/// becomes `SELECT DISTINCT * FROM (… UNION ALL …) AS mysql_union`: the part up to the last
/// `UNION [DISTINCT]`'s right operand, which MySQL makes distinct as a whole (a DISTINCT union
/// overrides any ALL union to its left); a `UNION ALL`, `ORDER BY` or `LIMIT` after it stays
/// outside. A recursive CTE's body must stay a compound: a statement with `RECURSIVE` is left
/// as it is. Returns the tokens, and where the first operand starts when the statement itself
/// became the wrapper (the select list the client's column names come from). One pass over
/// the levels, without recursion (a statement may nest thousands deep).
fn distinct_unions(tokens: Vec<Token>) -> (Vec<Token>, Option<usize>) {
    let distinct_at = |k: usize| {
        tokens[k].is_word("UNION") && !tokens.get(k + 1).is_some_and(|n| n.is_word("ALL"))
    };
    if !(0..tokens.len()).any(distinct_at) || tokens.iter().any(|t| t.is_word("RECURSIVE")) {
        return (tokens, None);
    }
    // Every level: the statement, and the inside of each parenthesized group.
    let mut levels: Vec<std::ops::Range<usize>> = Vec::new();
    levels.push(0..tokens.len());
    let mut open = Vec::new();
    for (k, t) in tokens.iter().enumerate() {
        if t.is_punct("(") {
            open.push(k);
        } else if t.is_punct(")") {
            if let Some(o) = open.pop() {
                levels.push(o + 1..k);
            }
        }
    }
    // What to put before a token, and which `UNION`s become `UNION ALL` (and which `DISTINCT`
    // after one goes).
    let mut before: Vec<(usize, Vec<Token>)> = Vec::new();
    let mut all_after = vec![false; tokens.len()];
    let mut dropped = vec![false; tokens.len()];
    let mut first_operand = None;
    for level in levels {
        let (lo, hi) = (level.start, level.end);
        let top: Vec<usize> = top_level(&tokens, level).collect();
        let Some(&last) = top.iter().rev().find(|&&k| distinct_at(k)) else {
            continue;
        };
        let start = match tokens.get(lo) {
            Some(t) if t.is_word("SELECT") || t.is_punct("(") => lo,
            Some(t) if t.is_word("WITH") => {
                match top.iter().find(|&&k| tokens[k].is_word("SELECT")) {
                    Some(&k) => k,
                    None => continue,
                }
            }
            _ => continue,
        };
        if start > last {
            continue;
        }
        let end = top
            .iter()
            .copied()
            .find(|&k| {
                k > last
                    && ["UNION", "ORDER", "LIMIT"]
                        .iter()
                        .any(|w| tokens[k].is_word(w))
            })
            .unwrap_or(hi);
        for &k in &top {
            if k > start && k <= last && distinct_at(k) {
                all_after[k] = true;
                if tokens.get(k + 1).is_some_and(|n| n.is_word("DISTINCT")) {
                    dropped[k + 1] = true;
                }
            }
        }
        let put = |t: Token, space_before: bool| Token {
            span: INSERTED,
            space_before,
            ..t
        };
        let opening = vec![
            put(word("SELECT", false), tokens[start].space_before),
            put(word("DISTINCT", true), true),
            put(punct("*"), true),
            put(word("FROM", true), true),
            put(punct("("), true),
        ];
        if lo == 0 && start == 0 {
            first_operand = Some(opening.len());
        }
        before.push((start, opening));
        before.push((
            end,
            vec![
                put(punct(")"), false),
                put(word("AS", true), true),
                put(word(UNION_TABLE, true), true),
            ],
        ));
    }
    before.sort_by_key(|(at, _)| *at);
    let mut out = Vec::with_capacity(tokens.len() + 8 * before.len());
    let mut inserts = before.into_iter().peekable();
    for (k, t) in tokens.into_iter().enumerate() {
        while let Some((_, made)) = inserts.next_if(|(at, _)| *at == k) {
            out.extend(made);
        }
        if dropped[k] {
            continue;
        }
        out.push(t);
        if all_after[k] {
            out.push(Token {
                span: INSERTED,
                ..word("ALL", true)
            });
        }
    }
    for (_, made) in inserts {
        out.extend(made);
    }
    (out, first_operand)
}

/// The DECIMAL arguments of the calls that turn them into text (`typing`'s `to_text`: where
/// each call's name starts, and its arguments' scales) wrapped in `mysql_decimal_text(x, scale)`,
/// so that `CONCAT(7 / 2, '')` writes 3.5000 as MySQL does, not SQLite's 3.5. A call whose tokens
/// do not match what the syntax tree saw (its name, a parenthesis, as many arguments) is left as
/// it is.
fn decimals_as_text(mut tokens: Vec<Token>, calls: &[(usize, Vec<Option<u8>>)]) -> Vec<Token> {
    for (start, scales) in calls {
        let Some(at) = tokens
            .iter()
            .position(|t| t.span.start == *start && t.word().is_some())
        else {
            continue;
        };
        if !tokens.get(at + 1).is_some_and(|t| t.is_punct("(")) {
            continue;
        }
        // The arguments' token ranges: split at the commas outside nested parentheses.
        let end = skip_group(&tokens, at + 1);
        if !tokens.get(end - 1).is_some_and(|t| t.is_punct(")")) {
            continue;
        }
        let mut args = Vec::new();
        let mut from = at + 2;
        for k in top_level(&tokens, at + 2..end - 1).filter(|&k| tokens[k].is_punct(",")) {
            args.push(from..k);
            from = k + 1;
        }
        args.push(from..end - 1);
        if args.len() != scales.len() || args.iter().any(|a| a.is_empty()) {
            continue;
        }
        // From the last argument back, so that the ranges before stay where they are.
        for (range, scale) in args.into_iter().zip(scales).rev() {
            let Some(scale) = scale else { continue };
            let space = tokens[range.start].space_before;
            tokens[range.start].space_before = false;
            tokens.insert(range.end, punct(")"));
            tokens.insert(
                range.end,
                Token {
                    span: 0..0,
                    kind: Kind::Number(scale.to_string()),
                    space_before: false,
                },
            );
            tokens.insert(range.end, punct(","));
            tokens.insert(range.start, punct("("));
            tokens.insert(range.start, word("mysql_decimal_text", space));
        }
    }
    tokens
}

/// `SELECT … GROUP BY g1, …, gn WITH ROLLUP [HAVING …] [LIMIT …]` as MariaDB answers it: the
/// groups, each level's super-aggregate rows (the rolled-up columns NULL, also in the select
/// list's expressions and the HAVING outside aggregates) after the groups they sum, the grand
/// total last (none over no rows), in the order of the GROUP BY columns. Made as a UNION ALL of
/// one grouped query per level, sorted by the levels' marks and the group values. `Err(why)`
/// for the shapes it does not take: a GROUP BY item that is not a column, a select item naming
/// a column outside aggregates that is not a GROUP BY column (its value in a super-aggregate row
/// would be any row's), DISTINCT, UNION, and ORDER BY (MariaDB refuses that too).
fn rollup(sql: &str, tokens: &[Token], with_at: usize) -> Result<Result<String, String>, LexError> {
    let refuse = |why: &str| Ok(Err(format!("GROUP BY … WITH ROLLUP: {why}")));
    let Some(items) = select_items(tokens) else {
        return refuse("only a SELECT's own GROUP BY can roll up");
    };
    let top: Vec<usize> = top_level(tokens, 0..tokens.len()).collect();
    let find = |w: &str| top.iter().copied().find(|&k| tokens[k].is_word(w));
    if find("UNION").is_some() || tokens.get(1).is_some_and(|t| t.is_word("DISTINCT")) {
        return refuse("DISTINCT and UNION are not supported with it");
    }
    if find("ORDER").is_some() {
        return refuse("Incorrect usage of CUBE/ROLLUP and ORDER BY");
    }
    let Some(group) = find("GROUP").filter(|&g| tokens.get(g + 1).is_some_and(|t| t.is_word("BY")))
    else {
        return refuse("it needs GROUP BY");
    };
    let Some(from) = find("FROM") else {
        return refuse("it needs FROM");
    };
    if !top.contains(&with_at) || group > with_at || from > group {
        return refuse("only the query's own GROUP BY can roll up");
    }
    // The GROUP BY columns: `c` or `t.c`, each maybe ASC or DESC.
    let mut columns: Vec<(&[Token], String, bool)> = Vec::new();
    for part in tokens[group + 2..with_at].split(|t| t.is_punct(",")) {
        let (expr, desc) = match part.last() {
            Some(t) if t.is_word("DESC") => (&part[..part.len() - 1], true),
            Some(t) if t.is_word("ASC") => (&part[..part.len() - 1], false),
            _ => (part, false),
        };
        let name = match expr {
            [c] => column_name_of(c),
            [_, dot, c] if dot.is_punct(".") => column_name_of(c),
            _ => None,
        };
        let Some(name) = name else {
            return refuse("each GROUP BY item must be a column");
        };
        columns.push((expr, name, desc));
    }
    let after = with_at + 2;
    let having = find("HAVING").filter(|&h| h >= after);
    let limit = find("LIMIT").filter(|&l| l >= after);
    // HAVING, then LIMIT (a LIMIT first puts HAVING's start past it: refused here).
    if having.or(limit).unwrap_or(tokens.len()) != after {
        return refuse("only HAVING and LIMIT may follow it");
    }
    let having_tokens = having.map(|h| &tokens[h + 1..limit.unwrap_or(tokens.len())]);

    // Each select item: its expression and its name (as the client sees it); refused where it
    // names a column outside aggregates that is not a GROUP BY column.
    let mut exprs = Vec::new();
    let mut names = Vec::new();
    for item in &items {
        let part = &tokens[item.clone()];
        if part.iter().any(|t| t.is_punct("*")) && part.len() <= 3 {
            return refuse("`*` is not supported with it");
        }
        let (expr, name) = if has_alias(part) && part.len() > 1 {
            let cut = if part[part.len() - 2].is_word("AS") {
                part.len() - 2
            } else {
                part.len() - 1
            };
            let alias = match &part[part.len() - 1].kind {
                Kind::Word(w) | Kind::Quoted(w) | Kind::Str(w) => w.clone(),
                _ => return refuse("an alias it cannot read"),
            };
            (&part[..cut], alias)
        } else {
            let name = match part {
                [_, dot, c] if dot.is_punct(".") => c.word().map(str::to_string),
                [Token {
                    kind: Kind::Str(text),
                    ..
                }] => Some(text.clone()),
                _ => None,
            };
            let written = part
                .iter()
                .enumerate()
                .map(|(k, t)| {
                    let text = &sql[t.span.clone()];
                    if k > 0 && t.space_before {
                        format!(" {text}")
                    } else {
                        text.to_string()
                    }
                })
                .collect::<String>();
            (part, name.unwrap_or(written))
        };
        if let Err(why) = rolled(expr, &columns, columns.len(), &[]) {
            return refuse(&why);
        }
        exprs.push(expr);
        names.push(name);
    }
    if let Some(h) = having_tokens {
        if let Err(why) = rolled(h, &columns, columns.len(), &names) {
            return refuse(&why);
        }
    }

    // One query per level: `kept` GROUP BY columns kept, the others rolled up (NULL).
    let sqlite = |made: Vec<Token>| -> Result<String, LexError> {
        Ok(to_sqlite(&operators(made)?)?.trim().to_string())
    };
    let body = sqlite(tokens[from..group].to_vec())?;
    let group_values = columns
        .iter()
        .map(|(expr, _, _)| sqlite(expr.to_vec()))
        .collect::<Result<Vec<_>, _>>()?;
    let mut levels = Vec::new();
    for kept in (0..=columns.len()).rev() {
        let mut list = Vec::new();
        for (i, expr) in exprs.iter().enumerate() {
            let made = rolled(expr, &columns, kept, &[]).map_err(LexError)?;
            list.push(format!("{} AS _pinbad_c{i}", sqlite(made)?));
        }
        for (k, value) in group_values.iter().enumerate() {
            let value = if k < kept { value.as_str() } else { "NULL" };
            list.push(format!(
                "{} AS _pinbad_r{k}, {value} AS _pinbad_g{k}",
                u8::from(k >= kept)
            ));
        }
        let mut q = format!("SELECT {} {body}", list.join(", "));
        if kept > 0 {
            q.push_str(&format!(" GROUP BY {}", group_values[..kept].join(", ")));
        }
        let mut conditions = Vec::new();
        if let Some(h) = having_tokens {
            let made = rolled(h, &columns, kept, &names).map_err(LexError)?;
            conditions.push(format!("({})", sqlite(made)?));
        }
        if kept == 0 {
            // The grand total is a group only where there are rows (none over no rows).
            conditions.push("COUNT(*) > 0".into());
        }
        if !conditions.is_empty() {
            q.push_str(&format!(" HAVING {}", conditions.join(" AND ")));
        }
        levels.push(q);
    }
    let outer: Vec<String> = names
        .iter()
        .enumerate()
        .map(|(i, name)| format!("_pinbad_c{i} AS {}", quote_ident(name)))
        .collect();
    let order: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(k, (_, _, desc))| {
            format!(
                "_pinbad_r{k}, _pinbad_g{k}{}",
                if *desc { " DESC" } else { "" }
            )
        })
        .collect();
    let mut out = format!(
        "SELECT {} FROM ({}) ORDER BY {}",
        outer.join(", "),
        levels.join(" UNION ALL "),
        order.join(", ")
    );
    if let Some(l) = limit {
        out.push(' ');
        out.push_str(&sqlite(tokens[l..].to_vec())?);
    }
    Ok(Ok(out))
}

/// A column's name in a token (`c` or `` `c` ``), folded: what a GROUP BY item names.
fn column_name_of(t: &Token) -> Option<String> {
    match &t.kind {
        Kind::Word(w) if precedence(t).is_none() && !is_boundary(t) => Some(w.to_ascii_lowercase()),
        Kind::Quoted(q) => Some(q.to_ascii_lowercase()),
        _ => None,
    }
}

/// `expr` with the GROUP BY columns past the first `kept` as NULL outside aggregate calls (a
/// super-aggregate row's value), or why it cannot be: it names, outside aggregates, a column that
/// is not a GROUP BY column.
fn rolled(
    expr: &[Token],
    columns: &[(&[Token], String, bool)],
    kept: usize,
    aliases: &[String],
) -> Result<Vec<Token>, String> {
    const WORDS: &[&str] = &[
        "AS",
        "NULL",
        "TRUE",
        "FALSE",
        "CASE",
        "WHEN",
        "THEN",
        "ELSE",
        "END",
        "DISTINCT",
        "INTERVAL",
        "COLLATE",
        "BINARY",
        "UNKNOWN",
        "ASC",
        "DESC",
        "SEPARATOR",
        "SIGNED",
        "UNSIGNED",
        "INTEGER",
        "INT",
        "CHAR",
        "DECIMAL",
        "DATE",
        "DATETIME",
        "TIME",
        "DOUBLE",
        "FLOAT",
        "USING",
    ];
    let mut out = Vec::with_capacity(expr.len());
    let mut i = 0;
    while i < expr.len() {
        let t = &expr[i];
        let call = expr.get(i + 1).is_some_and(|n| n.is_punct("("));
        if call && AGGREGATES.iter().any(|a| t.is_word(a)) {
            let end = skip_group(expr, i + 1);
            out.extend(expr[i..end].iter().cloned());
            i = end;
            continue;
        }
        let name = if call || expr.get(i + 1).is_some_and(|n| n.is_punct(".")) {
            None
        } else {
            match &t.kind {
                Kind::Word(_)
                    if precedence(t).is_some()
                        || WORDS.iter().any(|w| t.is_word(w))
                        || UNITS.iter().any(|u| t.is_word(u)) =>
                {
                    None
                }
                Kind::Word(_) | Kind::Quoted(_) => column_name_of(t),
                _ => None,
            }
        };
        match name {
            Some(name) => {
                let Some(k) = columns.iter().position(|(_, c, _)| *c == name) else {
                    // A select item's alias (in HAVING): that item's value at this level.
                    if let Some(a) = aliases.iter().position(|a| a.to_ascii_lowercase() == name) {
                        out.push(Token {
                            span: 0..0,
                            ..word(&format!("_pinbad_c{a}"), t.space_before)
                        });
                        i += 1;
                        continue;
                    }
                    return Err(format!(
                        "`{name}` is neither a GROUP BY column nor inside an aggregate"
                    ));
                };
                // `t.c`: the qualifier goes with the column.
                let qualified = i >= 2 && expr[i - 1].is_punct(".");
                if k >= kept {
                    if qualified {
                        out.truncate(out.len() - 2);
                    }
                    out.push(Token {
                        span: 0..0,
                        ..word("NULL", t.space_before)
                    });
                } else {
                    out.push(t.clone());
                }
            }
            None => out.push(t.clone()),
        }
        i += 1;
    }
    Ok(out)
}

/// A select list item that is a bit-value literal alone (`b'101'`) as the binary string MySQL
/// answers with (`X'05'`: the bits' bytes, big-endian, as few as hold them); elsewhere such a
/// literal is the number it is (`b'101' + 0` is 5).
fn bit_string(sql: &str, part: &[Token]) -> Option<String> {
    let (t, alias) = match part {
        [t] => (t, None),
        [t, a] if has_alias(part) => (t, Some(a)),
        [t, r#as, a] if r#as.is_word("AS") => (t, Some(a)),
        _ => return None,
    };
    let alias = match alias.map(|a| &a.kind) {
        None => String::new(),
        Some(Kind::Word(a) | Kind::Quoted(a) | Kind::Str(a)) => format!(" AS {}", quote_ident(a)),
        Some(_) => return None,
    };
    let Kind::Number(value) = &t.kind else {
        return None;
    };
    let written = &sql[t.span.clone()];
    let bits = written
        .strip_prefix("b'")
        .or_else(|| written.strip_prefix("B'"))?
        .strip_suffix('\'')?;
    let value: u64 = value.parse().ok()?;
    let len = bits.len().div_ceil(8);
    let bytes = &value.to_be_bytes()[8 - len.min(8)..];
    let hex: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
    Some(format!("X'{hex}'{alias}"))
}

/// The items of a `SELECT`'s list (the statement's first, which names the result's columns),
/// where it starts the statement and each item's tokens came from its text.
fn select_items(tokens: &[Token]) -> Option<Vec<std::ops::Range<usize>>> {
    if !tokens.first()?.is_word("SELECT") {
        return None;
    }
    let mut i = 1;
    while tokens.get(i).is_some_and(|t| {
        ["DISTINCT", "ALL", "DISTINCTROW"]
            .iter()
            .chain(DROPPED_MODIFIERS)
            .any(|w| t.is_word(w))
    }) {
        i += 1;
    }
    let mut items = Vec::new();
    let mut start = i;
    let mut depth = 0usize;
    while i < tokens.len() {
        let t = &tokens[i];
        if t.is_punct("(") {
            depth += 1;
        } else if t.is_punct(")") {
            depth = depth.checked_sub(1)?;
        } else if depth == 0 && t.is_punct(",") {
            items.push(start..i);
            start = i + 1;
        } else if depth == 0
            && [
                "FROM", "INTO", "UNION", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "WINDOW",
            ]
            .iter()
            .any(|w| t.is_word(w))
        {
            break;
        }
        i += 1;
    }
    items.push(start..i);
    let made = items.iter().any(|r| {
        r.is_empty()
            || tokens[r.clone()]
                .iter()
                .any(|t| t.span.is_empty() && t.span != INSERTED)
    });
    (!made).then_some(items)
}

/// Whether a select list item names itself (`x AS n`, `x n`) or is a star (`*`, `t.*`) or a lone
/// string (named by its text).
fn has_alias(item: &[Token]) -> bool {
    let last = &item[item.len() - 1];
    if item.len() == 1 {
        return matches!(last.kind, Kind::Str(_)) || last.is_punct("*");
    }
    let before = &item[item.len() - 2];
    if before.is_word("AS") || last.is_punct("*") {
        return true;
    }
    let interval_unit =
        UNITS.iter().any(|u| last.is_word(u)) && item.iter().any(|t| t.is_word("INTERVAL"));
    let names = matches!(last.kind, Kind::Quoted(_) | Kind::Str(_))
        || (last.word().is_some()
            && !interval_unit
            && !["NULL", "TRUE", "FALSE", "END", "UNKNOWN"]
                .iter()
                .any(|w| last.is_word(w)));
    names
        && precedence(before).is_none()
        && !before.is_punct(".")
        && !before.is_punct("-")
        && !before.is_punct("+")
        && !before.is_punct("!")
        && !before.is_punct("~")
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
        "WARNINGS" => Show::Warnings { errors: false },
        "ERRORS" => Show::Warnings { errors: true },
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
pub(super) const DROPPED_MODIFIERS: &[&str] = &[
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
pub(super) const RENAMED: &[(&str, &str)] = &[
    ("IF", "iif"),
    ("LEFT", "mysql_left"),
    ("RIGHT", "mysql_right"),
    ("ISNULL", "mysql_isnull"),
    ("LCASE", "lower"),
    ("UCASE", "upper"),
    ("CHAR_LENGTH", "char_length"),
    ("CHARACTER_LENGTH", "char_length"),
    ("OCTET_LENGTH", "length"),
    ("INSERT", "mysql_insert"),
    ("MID", "substr"),
    ("SUBSTRING", "substr"),
    ("POSITION", "locate"),
    ("EXTRACT", "mysql_extract"),
    ("CURRENT_TIME", "curtime"),
    ("UTC_TIMESTAMP", "utc_timestamp"),
    ("UTC_DATE", "utc_date"),
    ("UTC_TIME", "utc_time"),
    ("CURRENT_TIMESTAMP", "now"),
    ("CURRENT_DATE", "curdate"),
    ("LOCALTIME", "now"),
    ("LOCALTIMESTAMP", "now"),
    ("SYSDATE", "now"),
    ("MOD", "mysql_mod"),
    ("DATABASE", "database"),
    ("SCHEMA", "database"),
];

/// `expr` cast to MySQL's type `ty` (its words, upper-cased, and the numbers in parentheses), as
/// SQLite text: `SIGNED` rounds as MySQL does, `DECIMAL(m,d)` rounds to `d` decimals, the
/// temporal types take MySQL's forms.
pub(super) fn cast_to(expr: &str, ty: &[String], args: &[String]) -> Result<String, LexError> {
    let first = ty.first().map(String::as_str).unwrap_or("");
    Ok(match first {
        "SIGNED" | "INT" | "INTEGER" | "BIGINT" => format!("mysql_signed({expr})"),
        "UNSIGNED" => format!("mysql_unsigned({expr})"),
        "DECIMAL" | "NUMERIC" | "DEC" | "FIXED" => format!(
            "mysql_decimal({expr}, {})",
            args.get(1).map(String::as_str).unwrap_or("0")
        ),
        "DOUBLE" | "FLOAT" | "REAL" => format!("CAST({expr} AS REAL)"),
        "CHAR" | "VARCHAR" | "NCHAR" | "TEXT" | "" => format!("CAST({expr} AS TEXT)"),
        "BINARY" | "BLOB" => format!("CAST({expr} AS BLOB)"),
        "DATE" => format!("date({expr})"),
        "DATETIME" | "TIMESTAMP" => format!("mysql_datetime({expr})"),
        "TIME" => format!("time({expr})"),
        other => return Err(LexError(format!("CAST to {other} is not supported"))),
    })
}

/// `GROUP_CONCAT([DISTINCT] a, … [ORDER BY …] [SEPARATOR s])` at `at` as
/// `mysql_group_concat(distinct, s, a, … [ORDER BY …])` (`aggregates`), and the index after it.
fn group_concat(tokens: &[Token], at: usize) -> Result<(String, usize), LexError> {
    let end = skip_group(tokens, at + 1);
    let inner = &tokens[at + 2..end.saturating_sub(1).max(at + 2)];
    let distinct = inner.first().is_some_and(|t| t.is_word("DISTINCT"));
    let inner = &inner[usize::from(distinct)..];
    let mut depth = 0usize;
    let (mut order, mut separator) = (None, None);
    for (k, t) in inner.iter().enumerate() {
        if t.is_punct("(") {
            depth += 1;
        } else if t.is_punct(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && t.is_word("ORDER") && order.is_none() {
            order = Some(k);
        } else if depth == 0 && t.is_word("SEPARATOR") {
            separator = Some(k);
        }
    }
    let values_end = order.or(separator).unwrap_or(inner.len());
    let sep = match separator {
        Some(k) => match inner.get(k + 1).map(|t| &t.kind) {
            Some(Kind::Str(s)) => quote(s),
            _ => return Err(LexError("SEPARATOR needs a string".into())),
        },
        None => quote(","),
    };
    let values = to_sqlite(&inner[..values_end])?;
    if values.trim().is_empty() {
        return Err(LexError("GROUP_CONCAT needs a value".into()));
    }
    let order = match order {
        Some(k) => format!(
            " {}",
            to_sqlite(&inner[k..separator.unwrap_or(inner.len())])?
        ),
        None => String::new(),
    };
    Ok((
        format!(
            "mysql_group_concat({}, {sep}, {}{order})",
            u8::from(distinct),
            values.trim_start()
        ),
        end,
    ))
}

/// A query's tokens as SQLite text.
fn to_sqlite(tokens: &[Token]) -> Result<String, LexError> {
    let mut out = String::with_capacity(tokens.len() * 8);
    let mut i = 0;
    // Groups in which keywords separate arguments (`SUBSTRING(s FROM a FOR b)`): the group's
    // depth and its keywords.
    let mut commas: Vec<(usize, &'static [&'static str])> = Vec::new();
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
                if commas
                    .last()
                    .is_some_and(|(d, words)| *d == depth && words.contains(&up.as_str()))
                {
                    emit(",", false, &mut out);
                    i += 1;
                    continue;
                }
                // The unit that `TIMESTAMPDIFF`, `TIMESTAMPADD` and `EXTRACT` take first.
                if i >= 2
                    && tokens[i - 1].is_punct("(")
                    && ["TIMESTAMPDIFF", "TIMESTAMPADD", "EXTRACT"]
                        .iter()
                        .any(|f| tokens[i - 2].is_word(f))
                    && UNITS.contains(&up.as_str())
                {
                    emit(&quote(&up), t.space_before, &mut out);
                    i += 1;
                    continue;
                }
                if up == "GROUP_CONCAT" && next_is_paren_any {
                    let (text, next) = group_concat(tokens, i)?;
                    emit(&text, t.space_before, &mut out);
                    i = next;
                    continue;
                }
                // `IFNULL(n, 'x')`, `COALESCE(n, 'x')`: a string argument makes the result a
                // string, whichever argument it comes from.
                if (up == "IFNULL" || up == "COALESCE") && next_is_paren_any {
                    let end = skip_group(tokens, i + 1);
                    let string_arg = top_level(tokens, i + 2..end - 1).any(|k| {
                        matches!(tokens[k].kind, Kind::Str(_))
                            && (tokens[k - 1].is_punct("(") || tokens[k - 1].is_punct(","))
                            && (tokens[k + 1].is_punct(")") || tokens[k + 1].is_punct(","))
                    });
                    if string_arg {
                        let args = to_sqlite(&tokens[i + 2..end - 1])?;
                        emit(
                            &format!("CAST({w}({}) AS TEXT)", args.trim_start()),
                            t.space_before,
                            &mut out,
                        );
                        i = end;
                        continue;
                    }
                }
                // `COUNT(DISTINCT a, b)`: SQLite counts distinct values of one argument.
                if up == "COUNT"
                    && next_is_paren_any
                    && tokens.get(i + 2).is_some_and(|t| t.is_word("DISTINCT"))
                {
                    let end = skip_group(tokens, i + 1);
                    let several =
                        top_level(tokens, i + 3..end - 1).any(|k| tokens[k].is_punct(","));
                    if several {
                        let args = to_sqlite(&tokens[i + 3..end - 1])?;
                        emit(
                            &format!("{w}(DISTINCT mysql_tuple({}))", args.trim_start()),
                            t.space_before,
                            &mut out,
                        );
                        i = end;
                        continue;
                    }
                }
                if up == "TRIM" && next_is_paren_any {
                    let end = skip_group(tokens, i + 1);
                    let spec = tokens
                        .get(i + 2)
                        .and_then(Token::word)
                        .map(str::to_ascii_uppercase);
                    let spec =
                        spec.filter(|w| ["BOTH", "LEADING", "TRAILING"].contains(&w.as_str()));
                    let from = tokens[i + 2..end].iter().any(|t| t.is_word("FROM"));
                    if spec.is_some() || from {
                        emit(
                            &format!("mysql_trim({},", quote(spec.as_deref().unwrap_or("BOTH"))),
                            t.space_before,
                            &mut out,
                        );
                        depth += 1;
                        commas.push((depth, &["FROM"]));
                        i += 2 + usize::from(spec.is_some());
                        if tokens.get(i).is_some_and(|t| t.is_word("FROM")) {
                            out.push_str(" ' '");
                        }
                        continue;
                    }
                }
                if (up == "CONVERT" || up == "CAST") && next_is_paren_any {
                    let (text, next) = convert_or_cast(tokens, i, &up)?;
                    emit(&text, t.space_before, &mut out);
                    i = next;
                    continue;
                }
                if next_is_paren_any {
                    let words: &'static [&'static str] = match up.as_str() {
                        "SUBSTRING" | "SUBSTR" | "MID" => &["FROM", "FOR"],
                        "POSITION" => &["IN"],
                        "EXTRACT" => &["FROM"],
                        _ => &[],
                    };
                    if !words.is_empty() {
                        commas.push((depth + 1, words));
                    }
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
                        "CURRENT_TIME",
                        "LOCALTIME",
                        "LOCALTIMESTAMP",
                        "UTC_TIMESTAMP",
                        "UTC_DATE",
                        "UTC_TIME",
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
            Kind::Str(s) => {
                // A string compares, groups, sorts and is made distinct as MySQL's default
                // collation does: ignoring case and trailing spaces (`collation`; a
                // column alias `AS 'name'` stays a name).
                if i > 0 && tokens[i - 1].is_word("AS") {
                    emit(&quote(s), t.space_before, &mut out);
                } else {
                    emit(
                        &format!("{} COLLATE {}", quote(s), super::collation::NAME),
                        t.space_before,
                        &mut out,
                    );
                }
            }
            Kind::Number(n) => emit(n, t.space_before, &mut out),
            Kind::SysVar(v) => emit(&format!("sysvar({})", quote(v)), t.space_before, &mut out),
            Kind::UserVar(v) => {
                return Err(LexError(format!("user variables (@{v}) are not supported")))
            }
            Kind::Punct(p) => {
                if p == "(" {
                    depth += 1;
                } else if p == ")" {
                    if commas.last().is_some_and(|(d, _)| *d == depth) {
                        commas.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                let p = match p.as_str() {
                    "&&" => "AND",
                    "||" => "OR",
                    "!" => "NOT ",
                    "<=>" => "IS",
                    // MySQL divides as decimals do (`7/2` is 3.5); SQLite cuts integers.
                    "/" => "*1.0/",
                    p => p,
                };
                emit(p, t.space_before, &mut out);
            }
        }
        i += 1;
    }
    Ok(out)
}

/// How tightly MySQL binds a binary operator (higher binds tighter); `None` for what is not one.
fn precedence(t: &Token) -> Option<u8> {
    Some(match &t.kind {
        Kind::Punct(p) => match p.as_str() {
            "||" => 1,
            "&&" => 3,
            "=" | "<=>" | ">=" | ">" | "<=" | "<" | "<>" | "!=" => 5,
            "|" => 6,
            "&" => 7,
            "<<" | ">>" => 8,
            "+" | "-" => 9,
            "*" | "/" | "%" => 10,
            "^" => 11,
            _ => return None,
        },
        Kind::Word(w) => match w.to_ascii_uppercase().as_str() {
            "OR" => 1,
            "XOR" => 2,
            "AND" => 3,
            "NOT" => 4,
            "IS" | "LIKE" | "REGEXP" | "RLIKE" | "IN" | "BETWEEN" | "SOUNDS" => 5,
            "DIV" | "MOD" => 10,
            _ => return None,
        },
        _ => return None,
    })
}

/// Words that end an operand: clause keywords, and what separates a `CASE`'s parts.
const BOUNDARIES: &[&str] = &[
    "SELECT",
    "FROM",
    "WHERE",
    "GROUP",
    "HAVING",
    "ORDER",
    "LIMIT",
    "ON",
    "USING",
    "WHEN",
    "THEN",
    "ELSE",
    "END",
    "AS",
    "BY",
    "DISTINCT",
    "UNION",
    "JOIN",
    "ASC",
    "DESC",
    "SEPARATOR",
    "OVER",
    "WINDOW",
    "INTERVAL",
    "CASE",
    "ALL",
    "ANY",
    "SOME",
    "OFFSET",
    "FOR",
    "WITH",
];

/// The units `INTERVAL n UNIT` may name (`dates` says which it supports).
pub(super) const UNITS: &[&str] = &[
    "MICROSECOND",
    "SECOND",
    "MINUTE",
    "HOUR",
    "DAY",
    "WEEK",
    "MONTH",
    "QUARTER",
    "YEAR",
    "SECOND_MICROSECOND",
    "MINUTE_MICROSECOND",
    "MINUTE_SECOND",
    "HOUR_MICROSECOND",
    "HOUR_SECOND",
    "HOUR_MINUTE",
    "DAY_MICROSECOND",
    "DAY_SECOND",
    "DAY_MINUTE",
    "DAY_HOUR",
    "YEAR_MONTH",
];

fn is_boundary(t: &Token) -> bool {
    t.is_punct(",") || t.is_punct(";") || BOUNDARIES.iter().any(|w| t.is_word(w))
}

/// The index of the `(` that opens the group whose `)` is at `close`.
fn group_start(tokens: &[Token], close: usize) -> usize {
    let mut depth = 0usize;
    let mut j = close;
    loop {
        if tokens[j].is_punct(")") {
            depth += 1;
        } else if tokens[j].is_punct("(") {
            depth -= 1;
            if depth == 0 {
                return j;
            }
        }
        if j == 0 {
            return 0;
        }
        j -= 1;
    }
}

/// Where the left operand of a binary operator of precedence `p` at `at` starts: back over
/// operands and operators that bind at least as tightly (MySQL's are left-associative).
fn left_operand(tokens: &[Token], at: usize, p: u8) -> usize {
    let mut start = at;
    let mut j = at;
    while j > 0 {
        let t = &tokens[j - 1];
        if t.is_punct(")") {
            let open = group_start(tokens, j - 1);
            j = open;
            // A function's name belongs to its call.
            if j > 0
                && tokens[j - 1].word().is_some()
                && precedence(&tokens[j - 1]).is_none()
                && !is_boundary(&tokens[j - 1])
            {
                j -= 1;
            }
            start = j;
            continue;
        }
        if t.is_word("END") {
            // Back to the `CASE` this `END` closes.
            let mut depth = 0usize;
            let mut k = j - 1;
            loop {
                if tokens[k].is_word("END") {
                    depth += 1;
                } else if tokens[k].is_word("CASE") {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                if k == 0 {
                    break;
                }
                k -= 1;
            }
            j = k;
            start = j;
            continue;
        }
        if t.is_punct("(") || is_boundary(t) {
            break;
        }
        if let Some(q) = precedence(t) {
            if q < p {
                break;
            }
        }
        j -= 1;
        start = j;
    }
    start
}

/// Where the right operand of a binary operator of precedence `p` at `at` ends (exclusive):
/// forward over an operand and the operators that bind more tightly.
fn right_operand(tokens: &[Token], at: usize, p: u8) -> usize {
    let mut j = at + 1;
    let mut want_operand = true;
    while j < tokens.len() {
        let t = &tokens[j];
        if t.is_punct("(") {
            j = skip_group(tokens, j);
            want_operand = false;
            continue;
        }
        if t.is_word("CASE") {
            let mut depth = 0usize;
            while j < tokens.len() {
                if tokens[j].is_word("CASE") {
                    depth += 1;
                } else if tokens[j].is_word("END") {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                j += 1;
            }
            j += 1;
            want_operand = false;
            continue;
        }
        if t.is_punct(")") || is_boundary(t) {
            break;
        }
        if want_operand {
            // Unary `-`, `+`, `!`, `~`, `NOT` before the operand.
            if !(t.is_punct("-")
                || t.is_punct("+")
                || t.is_punct("!")
                || t.is_punct("~")
                || t.is_word("NOT"))
            {
                want_operand = false;
            }
            j += 1;
            continue;
        }
        match precedence(t) {
            Some(q) if q > p => {
                want_operand = true;
                j += 1;
            }
            Some(_) => break,
            // `a.b`: a qualified name goes on.
            None if t.is_punct(".") => {
                want_operand = true;
                j += 1;
            }
            None => break,
        }
    }
    j
}

fn word(w: &str, space_before: bool) -> Token {
    Token {
        span: 0..0,
        kind: Kind::Word(w.to_string()),
        space_before,
    }
}

fn punct(p: &str) -> Token {
    Token {
        span: 0..0,
        kind: Kind::Punct(p.to_string()),
        space_before: false,
    }
}

/// `name(left, right)` in place of `left op right`.
fn call(name: &str, left: &[Token], right: &[Token], extra: Vec<Token>) -> Vec<Token> {
    let mut out = vec![
        word(name, left.first().is_some_and(|t| t.space_before)),
        punct("("),
    ];
    out.extend(left.iter().cloned());
    if let Some(first) = out.get_mut(2) {
        first.space_before = false;
    }
    out.push(punct(","));
    out.extend(right.iter().cloned());
    out.extend(extra);
    out.push(punct(")"));
    out
}

/// The operators MySQL has and SQLite lacks or evaluates otherwise, as calls of `functions`:
/// `a XOR b`, `a DIV b`, `a % b` and `a MOD b` (SQLite's `%` cuts reals to integers), `a ^ b`,
/// `x ± INTERVAL n UNIT`; `INTERVAL n UNIT` as an argument (`DATE_ADD(x, INTERVAL n UNIT)`) as
/// `n, 'UNIT'`; `= ANY (…)` and `<> ALL (…)` as `IN`/`NOT IN`, other comparisons with `ANY`,
/// `SOME` or `ALL (…)` as [`quantified`] makes them.
fn operators(mut tokens: Vec<Token>) -> Result<Vec<Token>, LexError> {
    // Each pass rewrites one operator; the call it makes is an operand of the next.
    for _ in 0..10_000 {
        let Some(at) = tokens.iter().enumerate().position(|(i, t)| {
            t.is_word("XOR")
                || t.is_word("DIV")
                || (t.is_word("MOD") && !tokens.get(i + 1).is_some_and(|n| n.is_punct("(")))
                || t.is_punct("%")
                || t.is_punct("^")
                || t.is_word("INTERVAL")
                || ((t.is_word("ANY") || t.is_word("SOME") || t.is_word("ALL"))
                    && i > 0
                    && ["=", "<>", "!=", "<", ">", "<=", ">="]
                        .iter()
                        .any(|p| tokens[i - 1].is_punct(p)))
        }) else {
            return Ok(tokens);
        };
        let t = tokens[at].clone();
        if t.is_word("ANY") || t.is_word("SOME") || t.is_word("ALL") {
            let op = &tokens[at - 1];
            let all = t.is_word("ALL");
            if op.is_punct("=") && !all {
                let with = vec![word("IN", op.space_before)];
                tokens.splice(at - 1..=at, with);
            } else if (op.is_punct("<>") || op.is_punct("!=")) && all {
                let with = vec![word("NOT", op.space_before), word("IN", true)];
                tokens.splice(at - 1..=at, with);
            } else {
                let (start, made, end) = quantified(&tokens, at, all)?;
                tokens.splice(start..end, made);
            }
            continue;
        }
        if t.is_word("INTERVAL") {
            // `INTERVAL <expr> UNIT`: the unit is the first unit word at this depth.
            let mut depth = 0usize;
            let mut unit = None;
            for (k, u) in tokens.iter().enumerate().skip(at + 1) {
                if u.is_punct("(") {
                    depth += 1;
                } else if u.is_punct(")") {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                } else if depth == 0 && UNITS.iter().any(|w| u.is_word(w)) {
                    unit = Some(k);
                    break;
                }
            }
            let Some(unit) = unit else {
                return Err(LexError("INTERVAL needs a unit (INTERVAL 1 DAY)".into()));
            };
            let unit_name = tokens[unit].word().unwrap_or("").to_ascii_uppercase();
            let amount: Vec<Token> = tokens[at + 1..unit].to_vec();
            if amount.is_empty() {
                return Err(LexError("INTERVAL needs an amount (INTERVAL 1 DAY)".into()));
            }
            let sign = at.checked_sub(1).map(|i| &tokens[i]);
            if sign.is_some_and(|s| s.is_punct("+") || s.is_punct("-")) {
                // `x ± INTERVAL n UNIT`.
                let minus = sign.is_some_and(|s| s.is_punct("-"));
                let start = left_operand(&tokens, at - 1, 9);
                if start == at - 1 {
                    return Err(LexError("`± INTERVAL` needs a date before it".into()));
                }
                let mut n = Vec::new();
                if minus {
                    n.push(Token {
                        space_before: true,
                        ..punct("-")
                    });
                    n.push(punct("("));
                }
                n.extend(amount);
                if minus {
                    n[2].space_before = false;
                }
                if minus {
                    n.push(punct(")"));
                }
                let unit_arg = vec![
                    punct(","),
                    Token {
                        span: 0..0,
                        kind: Kind::Str(unit_name),
                        space_before: true,
                    },
                ];
                let made = call("mysql_date_add", &tokens[start..at - 1], &n, unit_arg);
                tokens.splice(start..=unit, made);
            } else {
                // An argument: `n, 'UNIT'`.
                let mut with = amount;
                if let Some(first) = with.first_mut() {
                    first.space_before = t.space_before;
                }
                with.push(punct(","));
                with.push(Token {
                    span: 0..0,
                    kind: Kind::Str(unit_name),
                    space_before: true,
                });
                tokens.splice(at..=unit, with);
            }
            continue;
        }
        let (name, p) = if t.is_word("XOR") {
            ("mysql_xor", 2)
        } else if t.is_word("DIV") {
            ("mysql_div", 10)
        } else if t.is_punct("^") {
            ("mysql_bitxor", 11)
        } else {
            ("mysql_mod", 10)
        };
        let start = left_operand(&tokens, at, p);
        let end = right_operand(&tokens, at, p);
        if start == at || end == at + 1 {
            return Err(LexError(format!(
                "`{}` needs an operand on each side",
                t.word()
                    .map_or_else(|| format!("{:?}", t.kind), str::to_string)
            )));
        }
        let made = call(name, &tokens[start..at], &tokens[at + 1..end], Vec::new());
        tokens.splice(start..end, made);
    }
    Err(LexError("too many operators to rewrite".into()))
}

/// Aggregate functions: a comparison's left side that calls one cannot move into the subquery
/// [`quantified`] makes (it would aggregate the subquery's rows).
pub(super) const AGGREGATES: &[&str] = &[
    "COUNT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "GROUP_CONCAT",
    "STD",
    "STDDEV",
    "STDDEV_POP",
    "STDDEV_SAMP",
    "VARIANCE",
    "VAR_POP",
    "VAR_SAMP",
    "BIT_OR",
    "BIT_AND",
    "BIT_XOR",
    "TOTAL",
];

/// `x op ALL (subquery)` or `x op ANY (subquery)` (`tokens[at]` is `ALL`, `ANY` or `SOME`,
/// `tokens[at - 1]` the comparison) as a scalar subquery over the subquery's rows that gives
/// MySQL's three-valued answer, which SQLite has no operator for: ALL is true when no row
/// compares false (an empty subquery included), false when one does, else NULL (a NULL row or
/// a NULL `x`); ANY is true when a row compares true, false when none can (an empty subquery
/// included), else NULL. Returns the range of `tokens` it replaces and its tokens.
fn quantified(
    tokens: &[Token],
    at: usize,
    all: bool,
) -> Result<(usize, Vec<Token>, usize), LexError> {
    let quantifier = if all { "ALL" } else { "ANY" };
    let op = match &tokens[at - 1].kind {
        Kind::Punct(p) if p == "!=" => "<>".to_string(),
        Kind::Punct(p) if ["=", "<>", "<", ">", "<=", ">="].contains(&p.as_str()) => p.clone(),
        _ => {
            return Err(LexError(format!(
                "{quantifier} (subquery) needs a comparison before it"
            )))
        }
    };
    let open = at + 1;
    if !(tokens.get(open).is_some_and(|t| t.is_punct("("))
        && tokens
            .get(open + 1)
            .is_some_and(|t| t.is_word("SELECT") || t.is_word("WITH")))
    {
        return Err(LexError(format!("`{op} {quantifier}` needs a subquery")));
    }
    let end = skip_group(tokens, open);
    let start = left_operand(tokens, at - 1, 5);
    let left = &tokens[start..at - 1];
    if left.is_empty() {
        return Err(LexError(format!(
            "`{op} {quantifier}` needs a value before it"
        )));
    }
    let aggregate = left
        .windows(2)
        .any(|w| w[1].is_punct("(") && AGGREGATES.iter().any(|a| w[0].is_word(a)))
        || left.iter().any(|t| t.is_word("OVER"));
    // Made tokens carry no span: a select list item holding one is named by its text.
    let text = |sql: &str| -> Result<Vec<Token>, LexError> {
        let mut made = self::tokens(sql)?;
        for t in &mut made {
            t.span = 0..0;
        }
        Ok(made)
    };
    let x = || -> Result<Vec<Token>, LexError> {
        let mut x = text(" (")?;
        x.extend(left.iter().cloned());
        x.extend(text(")")?);
        Ok(x)
    };
    let subquery = &tokens[open + 1..end - 1];
    if aggregate {
        // An aggregate cannot move into a subquery over the rows (it would count those), so
        // it stays where it is, compared with the subquery's summaries (each a scalar
        // subquery of its own): its rows, its NULLs, its smallest and largest value. ALL is
        // true for no rows, false where `x` fails against the extreme that decides (`> ALL`:
        // the largest; `= ALL`: both), else NULL where a row or `x` is NULL; ANY alike.
        let summary = |aggregate: &str| -> Result<Vec<Token>, LexError> {
            let mut s = text(" (WITH _pinbad_q(_pinbad_v) AS (")?;
            s.extend(subquery.iter().cloned());
            s.extend(text(&format!(") SELECT {aggregate} FROM _pinbad_q)"))?);
            Ok(s)
        };
        let compare = |extreme: &str| -> Result<Vec<Token>, LexError> {
            let mut c = x()?;
            c.extend(text(&format!(" {op}"))?);
            c.extend(summary(extreme)?);
            Ok(c)
        };
        let both = |joint: &str| -> Result<Vec<Token>, LexError> {
            let mut c = text(" (")?;
            c.extend(compare("MIN(_pinbad_v)")?);
            c.extend(text(&format!(" {joint}"))?);
            c.extend(compare("MAX(_pinbad_v)")?);
            c.extend(text(")")?);
            Ok(c)
        };
        // Where every non-NULL row passes (ALL), or some row does (ANY).
        let passes = match (all, op.as_str()) {
            (true, ">" | ">=") | (false, "<" | "<=") => compare("MAX(_pinbad_v)")?,
            (true, "<" | "<=") | (false, ">" | ">=") => compare("MIN(_pinbad_v)")?,
            (true, "=") => both("AND")?,
            (false, "<>") => both("OR")?,
            // `= ANY` and `<> ALL` are IN and NOT IN (see `operators`).
            _ => {
                return Err(LexError(format!(
                    "`{op} {quantifier}` of an aggregate is not supported"
                )))
            }
        };
        let mut made = text("(CASE WHEN")?;
        made[0].space_before = tokens[start].space_before;
        made.extend(summary("COUNT(*)")?);
        made.extend(text(&format!(" = 0 THEN {} WHEN", u8::from(all)))?);
        made.extend(x()?);
        made.extend(text(" IS NULL THEN NULL WHEN")?);
        if all {
            made.extend(text(" NOT (")?);
            made.extend(passes);
            made.extend(text(") THEN 0")?);
        } else {
            made.extend(passes);
            made.extend(text(" THEN 1")?);
        }
        made.extend(text(" WHEN")?);
        made.extend(summary("COUNT(*) - COUNT(_pinbad_v)")?);
        made.extend(text(&format!(
            " > 0 THEN NULL ELSE {} END)",
            u8::from(all)
        ))?);
        return Ok((start, made, end));
    }
    let mut made = text("(WITH _pinbad_q(_pinbad_v) AS (")?;
    made[0].space_before = tokens[start].space_before;
    made.extend(subquery.iter().cloned());
    made.extend(text(") SELECT CASE WHEN")?);
    if all {
        made.extend(text(" COUNT(*) = 0 THEN 1 WHEN SUM(NOT")?);
        made.extend(x()?);
        made.extend(text(&format!(" {op} _pinbad_v) > 0 THEN 0"))?);
    } else {
        made.extend(text(" SUM(")?);
        made.extend(x()?);
        made.extend(text(&format!(
            " {op} _pinbad_v) > 0 THEN 1 WHEN COUNT(*) = 0 THEN 0"
        ))?);
    }
    made.extend(text(" WHEN COUNT(_pinbad_v) < COUNT(*) OR")?);
    made.extend(x()?);
    made.extend(text(&format!(
        " IS NULL THEN NULL ELSE {} END FROM _pinbad_q)",
        u8::from(all)
    ))?);
    Ok((start, made, end))
}

/// [`quantified`]'s scalar subquery as text, for `translate`: `x` (SQLite text, an atom), the
/// comparison, the subquery's SQLite text, and whether `x` calls an aggregate.
pub(super) fn quantified_text(
    x: &str,
    op: &str,
    subquery: &str,
    all: bool,
    aggregate: bool,
) -> Result<String, LexError> {
    let quantifier = if all { "ALL" } else { "ANY" };
    if aggregate {
        let summary = |aggregate: &str| {
            format!("(WITH _pinbad_q(_pinbad_v) AS ({subquery}) SELECT {aggregate} FROM _pinbad_q)")
        };
        let compare = |extreme: &str| format!("{x} {op} {}", summary(extreme));
        let both = |joint: &str| {
            format!(
                "({} {joint} {})",
                compare("MIN(_pinbad_v)"),
                compare("MAX(_pinbad_v)")
            )
        };
        let passes = match (all, op) {
            (true, ">" | ">=") | (false, "<" | "<=") => compare("MAX(_pinbad_v)"),
            (true, "<" | "<=") | (false, ">" | ">=") => compare("MIN(_pinbad_v)"),
            (true, "=") => both("AND"),
            (false, "<>") => both("OR"),
            _ => {
                return Err(LexError(format!(
                    "`{op} {quantifier}` of an aggregate is not supported"
                )))
            }
        };
        let decided = if all {
            format!("NOT ({passes}) THEN 0")
        } else {
            format!("{passes} THEN 1")
        };
        return Ok(format!(
            "(CASE WHEN {} = 0 THEN {} WHEN {x} IS NULL THEN NULL WHEN {decided} WHEN {} > 0 \
             THEN NULL ELSE {} END)",
            summary("COUNT(*)"),
            u8::from(all),
            summary("COUNT(*) - COUNT(_pinbad_v)"),
            u8::from(all)
        ));
    }
    let decided = if all {
        format!("COUNT(*) = 0 THEN 1 WHEN SUM(NOT {x} {op} _pinbad_v) > 0 THEN 0")
    } else {
        format!("SUM({x} {op} _pinbad_v) > 0 THEN 1 WHEN COUNT(*) = 0 THEN 0")
    };
    Ok(format!(
        "(WITH _pinbad_q(_pinbad_v) AS ({subquery}) SELECT CASE WHEN {decided} WHEN \
         COUNT(_pinbad_v) < COUNT(*) OR {x} IS NULL THEN NULL ELSE {} END FROM _pinbad_q)",
        u8::from(all)
    ))
}

/// The indexes in `range` of the tokens outside parentheses nested in it.
fn top_level(tokens: &[Token], range: std::ops::Range<usize>) -> impl Iterator<Item = usize> + '_ {
    let mut depth = 0usize;
    range.filter(move |&k| {
        let t = &tokens[k];
        if t.is_punct("(") {
            depth += 1;
            false
        } else if t.is_punct(")") {
            depth = depth.saturating_sub(1);
            false
        } else {
            depth == 0
        }
    })
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
    let args: Vec<String> = inner[k + 1..]
        .iter()
        .filter_map(|t| match &t.kind {
            Kind::Number(n) => Some(n.clone()),
            _ => None,
        })
        .collect();
    Ok((cast_to(&expr, &words, &args)?, end))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// The token rewrite's statement (what `translate` declines), whichever `translate` takes.
    fn token_rewrite(sql: &str) -> Result<Statement, LexError> {
        let calls = super::super::typing::typing(sql).to_text;
        query_tokens(sql, lex(sql)?, &calls)
    }

    /// `q` without the collation every string literal gets and the names given to rewritten
    /// select list items (a test of each rewrite shows both).
    pub(in crate::sql) fn bare(q: &str) -> String {
        let mut q = q.replace(" COLLATE MYSQL", "");
        while let Some(at) = q.find(" AS `") {
            let end = at + 5 + q[at + 5..].find('`').unwrap() + 1;
            q.replace_range(at..end, "");
        }
        q
    }

    /// The token rewrite's query, [`bare`].
    fn query(sql: &str) -> String {
        match token_rewrite(sql).unwrap() {
            Statement::Query(q) => bare(&q),
            other => panic!("{sql}: {other:?}"),
        }
    }

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
            "SELECT CAST(TRIM(CAST(p90 AS TEXT)) AS REAL), mysql_signed(x)"
        );
        assert_eq!(
            query("SELECT @@version, @@session.time_zone, DATABASE()"),
            "SELECT sysvar('version'), sysvar('time_zone'), DATABASE()"
        );
        assert_eq!(
            query("SELECT SQL_CALC_FOUND_ROWS a DIV 2 FROM t FORCE INDEX (k) WHERE s RLIKE '^a'"),
            "SELECT mysql_div(a, 2) FROM t WHERE s REGEXP '^a'"
        );
        assert_eq!(
            query("SELECT GROUP_CONCAT(a SEPARATOR ';') , CURRENT_TIMESTAMP"),
            "SELECT mysql_group_concat(0, ';', a) , now()"
        );
    }

    #[test]
    fn mysql_operators_become_sqlite_calls() {
        assert_eq!(query("SELECT 7 / 2"), "SELECT 7 *1.0/ 2");
        assert_eq!(
            query("SELECT a DIV 60 * 60"),
            "SELECT mysql_div(a, 60) * 60"
        );
        assert_eq!(query("SELECT -7 % 3"), "SELECT -mysql_mod(7, 3)");
        assert_eq!(
            query("SELECT x = 1 AND y XOR z + 1 FROM t"),
            "SELECT mysql_xor(x = 1 AND y, z + 1) FROM t"
        );
        assert_eq!(
            query("SELECT NOW() - INTERVAL 1 DAY < NOW()"),
            "SELECT mysql_date_add(NOW(), -(1), 'DAY') < NOW()"
        );
        assert_eq!(
            query("SELECT DATE_SUB(f(x), INTERVAL 2 * 3 HOUR)"),
            "SELECT DATE_SUB(f(x), 2 * 3, 'HOUR')"
        );
        assert_eq!(
            query("SELECT TIMESTAMPDIFF(MINUTE, a, b), EXTRACT(YEAR FROM d)"),
            "SELECT TIMESTAMPDIFF('MINUTE', a, b), mysql_extract('YEAR', d)"
        );
        assert_eq!(
            query("SELECT SUBSTRING(s FROM 2 FOR 3), TRIM(LEADING '0' FROM s), b'101', 'a' 'b'"),
            "SELECT substr(s, 2, 3), mysql_trim('LEADING', '0', s), X'05', 'ab'"
        );
        assert_eq!(
            token_rewrite("SELECT 7 / 2, 7 / 2 AS h, r.x, 'x' FROM r").unwrap(),
            Statement::Query(
                "SELECT 7 *1.0/ 2 AS `7 / 2`, 7 *1.0/ 2 AS h, r.x, 'x' COLLATE MYSQL FROM r".into()
            )
        );
        assert_eq!(
            token_rewrite("SELECT 'a' = 'A' || x IN (SELECT 1) AND y = ANY (SELECT 2) AS 'n'")
                .unwrap(),
            Statement::Query(
                "SELECT 'a' COLLATE MYSQL = 'A' COLLATE MYSQL OR x IN (SELECT 1) AND y IN \
                 (SELECT 2) AS 'n'"
                    .into()
            )
        );
        assert_eq!(
            query("SELECT COUNT(DISTINCT a, f(b, c)), COUNT(DISTINCT a)"),
            "SELECT COUNT(DISTINCT mysql_tuple(a, f(b, c))), COUNT(DISTINCT a)"
        );
        assert_eq!(
            query("SELECT IFNULL(a, 'x'), COALESCE(a, b)"),
            "SELECT CAST(IFNULL(a, 'x') AS TEXT), COALESCE(a, b)"
        );
        assert_eq!(
            query("SELECT GROUP_CONCAT(DISTINCT a ORDER BY a DESC SEPARATOR '|') FROM t"),
            "SELECT mysql_group_concat(1, '|', a ORDER BY a DESC) FROM t"
        );
        assert_eq!(
            query("SELECT CAST(x AS DECIMAL(10,2)), CAST(y AS DATE), CONVERT(z, UNSIGNED)"),
            "SELECT mysql_decimal(x, 2), date(y), mysql_unsigned(z)"
        );
        assert!(token_rewrite("SELECT CAST(x AS JSON)").is_err());
        // A bit-value literal alone is MySQL's binary string; in an expression, its number.
        assert_eq!(
            token_rewrite("SELECT b'101', b'100000001' AS x, b'1' + 0").unwrap(),
            Statement::Query(
                "SELECT X'05' AS `b'101'`, X'0101' AS `x`, 1 + 0 AS `b'1' + 0`".into()
            )
        );
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
        assert_eq!(
            rows("SELECT UPPER(a), COUNT(*) FROM t GROUP BY a DESC WITH ROLLUP LIMIT 3"),
            ["Z 1", "Y 1", "X 2"]
        );
        assert!(rows("SELECT a, COUNT(*) FROM t WHERE b > 9 GROUP BY a WITH ROLLUP").is_empty());
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
            "SELECT a + 1, COUNT(*) FROM t GROUP BY a + 1 WITH ROLLUP",
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
        let Statement::Query(q) = classify("SELECT 7 / 2, 'x' UNION SELECT 1, 'y'").unwrap() else {
            panic!()
        };
        let st = c.prepare(&q).unwrap();
        assert_eq!(st.column_names()[0], "7 / 2", "{q}");
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
