//! A MySQL query translated to SQLite's dialect through its syntax tree: sqlparser's MySQL
//! dialect (`dialect`, with MySQL's precedences) parses it, the nodes where SQLite's rules
//! differ from MySQL's are rewritten in place, and sqlparser prints the tree again.
//!
//! A string literal compares as MySQL's default collation does (`COLLATE MYSQL`, case-
//! insensitively); `/` divides as MySQL's decimals do; `DIV`, `%`, `XOR`, `^`, `<=>`,
//! `± INTERVAL`, `= ANY`, `> ALL`, `CAST`, `CONVERT`, `TRIM(… FROM …)`,
//! `SUBSTRING(… FROM … FOR …)`, `POSITION(… IN …)`, `EXTRACT`, `GROUP_CONCAT` and
//! `COUNT(DISTINCT a, b)` become the calls `functions`, `dates` and `aggregates` register;
//! functions SQLite names otherwise are renamed ([`RENAMED`]); `||` is MySQL's OR;
//! `@@variables` are read with `sysvar`; `b'101'` is a number; index hints, `SELECT` modifiers
//! and locking clauses go. Every operand that is not an atom is parenthesized, so that SQLite's
//! precedences (which differ from MySQL's, e.g. for `&` and `|`) cannot regroup what MySQL's
//! grouped. `WITH ROLLUP` becomes a UNION ALL of one grouped query per level. A `UNION
//! [DISTINCT]` keeps, of rows MySQL's collation finds equal, the first, as MySQL does
//! ([`distinct_union`]). A select list item is named as MySQL names it, by the text the client
//! wrote.
//!
//! It takes what it knows. A node it has no rule for is refused, named as the client wrote it
//! (`MATCH (a) AGAINST ('x')` is not supported); what sqlparser cannot parse is a syntax
//! error, with sqlparser's words. Bounded before parsing: the text's length, its operators
//! (each a level of the tree that the parser, the printer and the visitors recurse into), and
//! its tree's memory, charged to SQL's.

use std::ops::ControlFlow;

use super::coercibility::{self, Collated, Derivation, Own};
use super::coldef::{Code, Meta};
use super::collation::Collation;
use super::dialect::MySql;
use sqlparser::ast::{
    BinaryOperator, CastKind, DataType, DuplicateTreatment, Expr, FunctionArg, FunctionArgExpr,
    FunctionArgumentClause, FunctionArguments, GroupByExpr, Ident, InTarget, JoinOperator,
    LimitClause, ObjectName, ObjectNamePart, OrderBy, OrderByKind, Query, Select, SelectItem,
    SetExpr, SetOperator, SetQuantifier, Spanned, Statement, TableFactor, TypedString,
    UnaryOperator, Value, ValueWithSpan, VisitMut, VisitorMut,
};
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Location, Token, TokenWithSpan, Tokenizer, Whitespace};

use super::prepared::PARAMETER;
use super::statement::quote;
use super::typing::{self, Ctes, Scope, Ty};
use super::variables::Context;
use crate::sqlite_heap::HEAP;

/// The longest query taken (`mysql.max_allowed_packet` lets 16 MB in): its syntax tree is
/// charged to SQL's memory first ([`TREE_BYTES_PER_BYTE`]), which bounds it well before this.
const MAX_BYTES: usize = 1 << 20;

/// What a query's syntax tree may take per byte of its text, charged to SQL's memory while it
/// is translated: sqlparser's nodes are large, and a select list of calls (`f(a), f(a), …`)
/// takes most (BENCHMARKS.md, "A query's syntax tree").
const TREE_BYTES_PER_BYTE: u64 = 1024;

/// The most operators (and keywords) a query may hold. sqlparser bounds the nesting it
/// recurses into (50 levels), but builds a chain of left-associative operators (`1+1+…`,
/// `a OR b OR …`, `… UNION …`) in a loop, one tree level per operator, and its printing, its
/// visitors and dropping the tree recurse into each level.
const MAX_OPERATORS: usize = 10_000;

/// Up to this many operators a query is translated on the caller's stack (a worker's 2 MB);
/// beyond, on a thread of its own with [`DEEP_STACK`] (mapped, touched only as deep as used).
const SHALLOW_OPERATORS: usize = 128;

/// The stack of a query with more than [`SHALLOW_OPERATORS`]: room for [`MAX_OPERATORS`]
/// levels at several times what each takes in a release build.
const DEEP_STACK: usize = 128 << 20;

/// The most text an `ANY`/`ALL` comparison's operands may hold: its translation repeats them
/// (an aggregate's subquery four times), so nested ones would grow exponentially.
const MAX_QUANTIFIED_BYTES: usize = 256 << 10;

/// Why a query is not translated.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    /// It is not SQL that sqlparser's MySQL dialect reads (error 1064).
    Syntax(String),
    /// It asks what pinbad does not do (error 1235), and what that is.
    Unsupported(String),
    /// Its syntax tree would take SQL past its memory (error 1041).
    Memory(String),
    /// MySQL refuses it with this error (its code and words).
    Error(u16, String),
}

/// A query as SQLite text, with its result columns' DECIMAL scales (`typing`'s), or why not.
pub type Translated = Result<(String, Vec<Option<Meta>>), Refusal>;

/// `sql`, one MySQL query, translated as a session with its variables' defaults reads it.
#[cfg(test)]
pub fn query(sql: &str) -> Translated {
    query_in(sql, &Context::default())
}

/// `sql`, one MySQL query, translated as a session whose variables are `context` reads it.
pub fn query_in(sql: &str, context: &Context) -> Translated {
    bounded(sql, |sql, tokens| translate(sql, tokens, context))
}

/// Where MySQL names the unknown column `name` of `sql` (a query SQLite found no such column
/// in): the clause its resolution meets the name in first (`resolution`), `SELECT` where the
/// query cannot be read again.
pub fn unknown_column_clause(sql: &str, name: &str) -> &'static str {
    let clause = bounded(sql, |_, tokens| {
        let (tokens, _) = super::dialect::mysql_clauses(tokens);
        let parsed = Parser::new(&MySql)
            .with_tokens_with_locations(tokens)
            .parse_statements();
        Ok(match parsed.as_deref() {
            Ok([Statement::Query(q)]) => super::resolution::unknown_column(q, name),
            _ => None,
        })
    });
    clause
        .ok()
        .flatten()
        .map_or("SELECT", super::resolution::Clause::word)
}

/// `read(sql, its tokens)`, within the bounds every query is read in: its length, its
/// operators (the depth of its tree: a deep one is read on a thread of a deeper stack), and
/// the memory its tree may take.
fn bounded<T: Send>(
    sql: &str,
    read: impl FnOnce(&str, Vec<TokenWithSpan>) -> Result<T, Refusal> + Send,
) -> Result<T, Refusal> {
    if sql.len() > MAX_BYTES {
        return Err(Refusal::Unsupported(format!(
            "a query longer than {} KB is not supported",
            MAX_BYTES >> 10
        )));
    }
    let tokens = Tokenizer::new(&MySql, sql)
        .tokenize_with_location()
        .map_err(|e| Refusal::Syntax(e.to_string()))?;
    let operators = tokens.iter().filter(|t| deepens(&t.token)).count();
    if operators > MAX_OPERATORS {
        return Err(Refusal::Unsupported(format!(
            "a query with more than {MAX_OPERATORS} operators and keywords is not supported"
        )));
    }
    let charge = (sql.len() as u64).saturating_mul(TREE_BYTES_PER_BYTE);
    if !HEAP.charge(charge) {
        // The refusal is this query's answer, not the next statement's on this thread.
        crate::sqlite_heap::take_refused();
        return Err(Refusal::Memory(format!(
            "Out of memory: a query of {} KB may take {} MB to read, more than SQL's memory \
             has left (mysql.max_memory)",
            sql.len().div_ceil(1024),
            charge.div_ceil(1 << 20)
        )));
    }
    struct Held(u64);
    impl Drop for Held {
        fn drop(&mut self) {
            HEAP.release(self.0);
        }
    }
    let _held = Held(charge);
    if operators <= SHALLOW_OPERATORS {
        return read(sql, tokens);
    }
    std::thread::scope(|scope| {
        let deep = std::thread::Builder::new()
            .name("pinbad-sql-deep".into())
            .stack_size(DEEP_STACK)
            .spawn_scoped(scope, || read(sql, tokens))
            .map_err(|e| Refusal::Memory(format!("Out of memory: no thread to read it: {e}")))?;
        deep.join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// `SELECT … INTO @a, @b …` (the `INTO` anywhere MySQL takes it, outside parentheses): the
/// query without its `INTO` (blanked, every other token in its place) and the user variables'
/// names (lower-cased, as they are held), which the session sets from its one row; `None` for
/// any other statement (an `INTO OUTFILE` stays refused).
pub fn select_into(sql: &str) -> Option<(String, Vec<String>)> {
    if !sql.to_ascii_uppercase().contains("INTO") {
        return None;
    }
    let tokens = Tokenizer::new(&MySql, sql).tokenize_with_location().ok()?;
    let significant: Vec<&TokenWithSpan> = tokens
        .iter()
        .filter(|t| !matches!(t.token, Token::Whitespace(_)))
        .collect();
    let word = |t: &TokenWithSpan, k: Keyword| matches!(&t.token, Token::Word(w) if w.keyword == k && w.quote_style.is_none());
    let first = significant.first()?;
    if !word(first, Keyword::SELECT) && !word(first, Keyword::WITH) {
        return None;
    }
    let variable = |t: &TokenWithSpan| match &t.token {
        Token::Word(w)
            if w.quote_style.is_none()
                && w.value.starts_with('@')
                && !w.value.starts_with("@@") =>
        {
            Some(w.value[1..].to_lowercase())
        }
        _ => None,
    };
    let mut depth = 0usize;
    for (i, t) in significant.iter().enumerate() {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            _ if depth == 0 && word(t, Keyword::INTO) => {
                let mut names = Vec::new();
                let mut end = i;
                loop {
                    let name = significant.get(end + 1).and_then(|t| variable(t))?;
                    names.push(name);
                    end += 1;
                    if significant.get(end + 1).map(|t| &t.token) != Some(&Token::Comma) {
                        break;
                    }
                    end += 1;
                }
                let lines = Lines::new(sql);
                let from = lines.offset(sql, t.span.start)?;
                let to = lines.offset(sql, significant[end].span.end)?;
                let mut query = sql.to_string();
                let blank = " ".repeat(sql.get(from..to)?.chars().count());
                query.replace_range(from..to, &blank);
                return Some((query, names));
            }
            _ => {}
        }
    }
    None
}

/// `SELECT SQL_CALC_FOUND_ROWS … LIMIT n`'s count for `FOUND_ROWS()`: the rows the statement
/// gives without its LIMIT, as a second query (SQLite's text) that counts them, bounded as any
/// statement is; `None` where the statement does not ask for it (no SQL_CALC_FOUND_ROWS in its
/// first SELECT, or no LIMIT: its rows sent are the count) or the count cannot be made.
pub fn found_rows_query(sql: &str, context: &Context) -> Option<String> {
    if sql.len() > MAX_BYTES || !sql.to_ascii_uppercase().contains("SQL_CALC_FOUND_ROWS") {
        return None;
    }
    let tokens = Tokenizer::new(&MySql, sql).tokenize_with_location().ok()?;
    let (tokens, _) = super::dialect::mysql_clauses(tokens);
    let mut statements = Parser::new(&MySql)
        .with_tokens_with_locations(tokens)
        .parse_statements()
        .ok()?;
    let Some(Statement::Query(mut query)) = statements.pop() else {
        return None;
    };
    // MySQL reads the modifier of a UNION's first SELECT for the whole UNION.
    let mut first = query.body.as_ref();
    while let SetExpr::SetOperation { left, .. } = first {
        first = left.as_ref();
    }
    let SetExpr::Select(select) = first else {
        return None;
    };
    if !select
        .select_modifiers
        .as_ref()
        .is_some_and(|m| m.sql_calc_found_rows)
    {
        return None;
    }
    query.limit_clause.take()?;
    let unlimited = Context {
        select_limit: None,
        ..context.clone()
    };
    let (text, _) = query_in(&query.to_string(), &unlimited).ok()?;
    Some(format!("SELECT COUNT(*) FROM ({text})"))
}

/// Whether a token may open a level of the syntax tree that sqlparser's recursion limit does
/// not count: an operator or a keyword (not a literal, a name, a comma or a parenthesis).
fn deepens(token: &Token) -> bool {
    match token {
        Token::Word(w) => w.keyword != Keyword::NoKeyword && w.quote_style.is_none(),
        Token::Whitespace(_)
        | Token::Comma
        | Token::Period
        | Token::LParen
        | Token::RParen
        | Token::SemiColon
        | Token::EOF
        | Token::Number(..)
        | Token::SingleQuotedString(_)
        | Token::DoubleQuotedString(_)
        | Token::NationalStringLiteral(_)
        | Token::HexStringLiteral(_)
        | Token::SingleQuotedByteStringLiteral(_)
        | Token::Placeholder(_) => false,
        _ => true,
    }
}

/// [`query`], once bounded.
fn translate(sql: &str, tokens: Vec<TokenWithSpan>, context: &Context) -> Translated {
    typing::with_tables(&context.tables, || {
        typing::with_user_types(&context.user_types, || {
            typing::with_system_texts(&context.system_texts, || {
                let rules = typing::Rules {
                    div_increment: context.div_increment.into(),
                    pipes_as_concat: context.pipes_as_concat,
                    hex_strings: hex_strings(sql, &tokens),
                    group_concat_max_len: context.group_concat_max_len,
                    strict: context.strict,
                };
                typing::with_rules(rules, || translate_with(sql, tokens, context))
            })
        })
    })
}

/// Where the hexadecimal literals written `x'…'` (not `0x…`) start.
fn hex_strings(sql: &str, tokens: &[TokenWithSpan]) -> Vec<Location> {
    let lines = Lines::new(sql);
    tokens
        .iter()
        .filter(|t| matches!(t.token, Token::HexStringLiteral(_)))
        .filter(|t| {
            lines
                .offset(sql, t.span.start)
                .and_then(|at| sql.get(at..))
                .is_some_and(|w| w.starts_with(['x', 'X']))
        })
        .map(|t| t.span.start)
        .collect()
}

/// MySQL's 1064 message for a statement read up to `near` (one line: MySQL quotes the rest of
/// the statement from there).
fn syntax_error_near(near: &str) -> String {
    format!(
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL \
         server version for the right syntax to use near '{near}' at line 1"
    )
}

/// [`translate`], the session's report tables known to `typing`.
fn translate_with(sql: &str, tokens: Vec<TokenWithSpan>, context: &Context) -> Translated {
    let unsupported = |why: &str| Err(Refusal::Unsupported(why.to_string()));
    let (tokens, directions) = super::dialect::mysql_clauses(tokens);
    let mut statements = Parser::new(&MySql)
        .with_tokens_with_locations(tokens.clone())
        .parse_statements()
        .map_err(|e| Refusal::Syntax(e.to_string()))?;
    if statements.len() != 1 {
        return unsupported("one statement at a time");
    }
    let Some(Statement::Query(mut query)) = statements.pop() else {
        return unsupported("only queries are read here");
    };
    let lines = Lines::new(sql);
    let _ = query.visit(&mut RowConstructors);
    let _ = query.visit(&mut Aliases);
    let mut percentiles = Percentiles(None);
    let _ = query.visit(&mut percentiles);
    if let Some(near) = percentiles.0 {
        return Err(Refusal::Error(1064, syntax_error_near(&near)));
    }
    if let Some((code, why)) = super::windows::refused(&query) {
        return Err(Refusal::Error(code, why));
    }
    if !directions.is_empty() {
        let _ = query.visit(&mut GroupOrder(&directions));
    }
    let typed = super::typing::of(&query);
    if name_items(sql, &tokens, &lines, &mut query).is_none() {
        return unsupported("the select list's items could not be named as MySQL names them");
    }
    let _ = query.visit(&mut DerivedNames {
        sql,
        tokens: &tokens,
        lines: &lines,
    });
    let _ = query.visit(&mut GroupTies(&directions));
    // `sql_select_limit`: the rows of the statement's own SELECT, where it sets none.
    if let (Some(n), None) = (context.select_limit, &query.limit_clause) {
        query.limit_clause = Some(LimitClause::LimitOffset {
            limit: Some(Expr::Value(Value::Number(n.to_string(), false).into())),
            offset: None,
            limit_by: Vec::new(),
        });
    }
    if let Some((code, why)) = not_mysql_call(&mut query) {
        return Err(Refusal::Error(code, why));
    }
    if context.only_full_group_by {
        let mut check = FullGroupBy(None);
        let _ = query.visit(&mut check);
        if let Some((code, why)) = check.0 {
            return Err(Refusal::Error(code, why));
        }
    }
    let _ = query.visit(&mut SessionRules { context });
    let rolls = {
        let mut count = Rollups(0);
        let _ = query.visit(&mut count);
        count.0
    };
    if rolls > 0 {
        query = rollup(*query, rolls, &directions)
            .map_err(|why| Refusal::Unsupported(format!("GROUP BY … WITH ROLLUP: {why}")))?;
    }
    let mut rewrite = Rewrite {
        sql,
        lines: &lines,
        recursive: false,
        refused: None,
        error: None,
        literals: context.literals.sqlite(),
        literals_mb3: context.literals_mb3,
        operands: None,
        ctes: Vec::new(),
        scopes: Vec::new(),
        first_rows: Vec::new(),
        keys: Vec::new(),
        double_fields: Vec::new(),
        types: Vec::new(),
        marks: Vec::new(),
        found: typing::Found::default(),
        fixed: Vec::new(),
        wide: Vec::new(),
        ordered: Vec::new(),
        collations: Vec::new(),
        charset_args: Vec::new(),
        typed: std::collections::HashMap::new(),
    };
    if let ControlFlow::Break(()) = query.visit(&mut rewrite) {
        if let Some((code, why)) = rewrite.error {
            return Err(Refusal::Error(code, why));
        }
        return Err(Refusal::Unsupported(
            rewrite
                .refused
                .unwrap_or_else(|| "this query is not supported".into()),
        ));
    }
    Ok((query.to_string(), typed.columns))
}

/// MariaDB's `GROUP BY x DESC` (or `ASC`): the groups come sorted so, as the ORDER BY of
/// their items in those directions (`ASC` where none is written) gives them, where the query
/// has none of its own (which MariaDB follows instead); under `WITH ROLLUP` the rollup's own
/// order takes them (`rollup`).
struct GroupOrder<'a>(&'a super::dialect::GroupDirections);

/// The directions written for `select`'s GROUP BY items, where any was.
fn group_directions<'a>(
    directions: &'a super::dialect::GroupDirections,
    select: &Select,
) -> Option<&'a [Option<bool>]> {
    directions
        .iter()
        .find(|(at, _)| *at == select.select_token.0.span.start)
        .map(|(_, d)| d.as_slice())
}

impl VisitorMut for GroupOrder<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        let Some((select, groups)) = grouped_select(query) else {
            return ControlFlow::Continue(());
        };
        let Some(directions) = group_directions(self.0, select) else {
            return ControlFlow::Continue(());
        };
        if query.order_by.is_some() || groups.len() != directions.len() {
            return ControlFlow::Continue(());
        }
        let exprs = groups
            .iter()
            .zip(directions)
            .map(|(g, d)| order_item(g, *d == Some(true)))
            .collect();
        query.order_by = Some(sqlparser::ast::OrderBy {
            kind: sqlparser::ast::OrderByKind::Expressions(exprs),
            interpolate: None,
        });
        ControlFlow::Continue(())
    }
}

/// `query`'s own select and its GROUP BY items, where it groups (without `WITH ROLLUP`).
fn grouped_select(query: &Query) -> Option<(&Select, &[Expr])> {
    let SetExpr::Select(select) = query.body.as_ref() else {
        return None;
    };
    match &select.group_by {
        GroupByExpr::Expressions(groups, modifiers)
            if !groups.is_empty() && modifiers.is_empty() =>
        {
            Some((select, groups))
        }
        _ => None,
    }
}

/// `ORDER BY expr ASC` (or `DESC`).
fn order_item(expr: &Expr, desc: bool) -> sqlparser::ast::OrderByExpr {
    sqlparser::ast::OrderByExpr {
        expr: expr.clone(),
        options: sqlparser::ast::OrderByOptions {
            sort: Some(if desc {
                sqlparser::ast::OrderBySort::Desc
            } else {
                sqlparser::ast::OrderBySort::Asc
            }),
            nulls_first: None,
        },
        with_fill: None,
    }
}

/// A grouped select's `ORDER BY` that leaves ties (`ORDER BY COUNT(*) DESC`) sorts them by the
/// groups (their GROUP BY items, in the directions written), where SQLite's sort, descending,
/// would give them reversed. MariaDB's ties follow its temporary table's rows, the groups in
/// the order their first rows were read, so they vary with the rows' order; this is its order
/// where the rows come in the groups' order, and the same on every run. `ORDER BY NULL` asks
/// for no order, and gets none.
struct GroupTies<'a>(&'a super::dialect::GroupDirections);

impl VisitorMut for GroupTies<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        let Some((select, groups)) = grouped_select(query) else {
            return ControlFlow::Continue(());
        };
        let directions = group_directions(self.0, select).unwrap_or(&[]);
        let ties: Vec<_> = groups
            .iter()
            .enumerate()
            .map(|(k, g)| order_item(g, directions.get(k).copied().flatten() == Some(true)))
            .collect();
        let Some(sqlparser::ast::OrderBy {
            kind: sqlparser::ast::OrderByKind::Expressions(order),
            ..
        }) = query.order_by.as_mut()
        else {
            return ControlFlow::Continue(());
        };
        if order
            .iter()
            .any(|o| matches!(&o.expr, Expr::Value(v) if v.value == Value::Null))
        {
            return ControlFlow::Continue(());
        }
        for tie in ties {
            let text = tie.expr.to_string();
            if !order.iter().any(|o| o.expr.to_string() == text) {
                order.push(tie);
            }
        }
        ControlFlow::Continue(())
    }
}

/// MariaDB's percentile window functions, `PERCENTILE_CONT(p) WITHIN GROUP (ORDER BY x [DESC])
/// OVER ([PARTITION BY …])`, `PERCENTILE_DISC` alike and `MEDIAN(x) OVER (…)`, made the calls
/// the rules read, `PERCENTILE_CONT(p, x, desc)` (`MEDIAN`'s `p` 0.5), over the partition's
/// every row (`aggregates`' `Percentile` computes them). Written otherwise (no `OVER`, an
/// `OVER` with an order, a frame or a window's name, not one ordering term), it is MariaDB's
/// syntax error: what it is near, in `.0`.
struct Percentiles(Option<String>);

impl VisitorMut for Percentiles {
    type Break = ();

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        let Expr::Function(f) = e else {
            return ControlFlow::Continue(());
        };
        let [ObjectNamePart::Identifier(name)] = f.name.0.as_slice() else {
            return ControlFlow::Continue(());
        };
        let up = name.value.to_ascii_uppercase();
        let median = up == "MEDIAN";
        if name.quote_style.is_some()
            || !(median || up == "PERCENTILE_CONT" || up == "PERCENTILE_DISC")
        {
            return ControlFlow::Continue(());
        }
        let args: Vec<Expr> = match &f.args {
            FunctionArguments::List(l)
                if l.duplicate_treatment.is_none() && l.clauses.is_empty() =>
            {
                l.args
                    .iter()
                    .filter_map(|a| match a {
                        FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Some(x.clone()),
                        _ => None,
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        let whole = |spec: &sqlparser::ast::WindowSpec| {
            spec.window_name.is_none() && spec.order_by.is_empty() && spec.window_frame.is_none()
        };
        let ordered: Option<(Expr, bool)> = match f.within_group.as_slice() {
            [] if median => args.first().cloned().map(|x| (x, false)),
            [o] if !median => Some((
                o.expr.clone(),
                matches!(o.options.sort, Some(sqlparser::ast::OrderBySort::Desc)),
            )),
            _ => None,
        };
        let fraction = if median {
            Some(Expr::Value(Value::Number("0.5".into(), false).into()))
        } else {
            args.first().cloned()
        };
        let spec = match &f.over {
            Some(sqlparser::ast::WindowType::WindowSpec(spec)) if whole(spec) => Some(spec),
            _ => None,
        };
        let (Some((x, desc)), Some(p), Some(spec), 1) = (ordered, fraction, spec, args.len())
        else {
            self.0 = Some(e.to_string().chars().take(60).collect());
            return ControlFlow::Break(());
        };
        let mut spec = spec.clone();
        spec.window_frame = Some(sqlparser::ast::WindowFrame {
            units: sqlparser::ast::WindowFrameUnits::Rows,
            start_bound: sqlparser::ast::WindowFrameBound::Preceding(None),
            end_bound: Some(sqlparser::ast::WindowFrameBound::Following(None)),
        });
        let name = if up == "PERCENTILE_DISC" {
            "PERCENTILE_DISC"
        } else {
            "PERCENTILE_CONT"
        };
        let desc = Expr::Value(Value::Number(u8::from(desc).to_string(), false).into());
        let mut call = f.clone();
        // (Where it was written: the select list's items are named from their spans.)
        let span = f.name.span();
        call.name = ObjectName::from(vec![Ident::with_span(span, name)]);
        call.within_group = Vec::new();
        call.over = Some(sqlparser::ast::WindowType::WindowSpec(spec));
        call.args = FunctionArguments::List(sqlparser::ast::FunctionArgumentList {
            duplicate_treatment: None,
            args: [p, x, desc]
                .into_iter()
                .map(|a| FunctionArg::Unnamed(FunctionArgExpr::Expr(a)))
                .collect(),
            clauses: Vec::new(),
        });
        *e = Expr::Function(call);
        ControlFlow::Continue(())
    }
}

/// MariaDB's other names of a function, made the name the rules know it by before anything
/// reads the tree: `NVL` is `IFNULL`.
struct Aliases;

impl VisitorMut for Aliases {
    type Break = ();

    fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<()> {
        if let Expr::Function(f) = e {
            if let [ObjectNamePart::Identifier(name)] = f.name.0.as_mut_slice() {
                if name.quote_style.is_none() && name.value.eq_ignore_ascii_case("NVL") {
                    name.value = "IFNULL".into();
                }
            }
        }
        if let Some(made) = timestamp_function(e) {
            *e = made;
        }
        ControlFlow::Continue(())
    }
}

/// MySQL's function `TIMESTAMP(x)`, `x` as a DATETIME (`CAST(x AS DATETIME(n))`), and
/// `TIMESTAMP(x, t)`, that moved by the time `t` (`ADDTIME(CAST(x AS DATETIME(n)), t)`), with
/// the fraction digits MariaDB gives it: the most of its arguments' ([`fraction_digits`]).
/// `None` for anything else.
fn timestamp_function(e: &Expr) -> Option<Expr> {
    let Expr::Function(f) = e else { return None };
    let [ObjectNamePart::Identifier(name)] = f.name.0.as_slice() else {
        return None;
    };
    if name.quote_style.is_some() || !name.value.eq_ignore_ascii_case("TIMESTAMP") {
        return None;
    }
    let FunctionArguments::List(list) = &f.args else {
        return None;
    };
    if list.duplicate_treatment.is_some() || !list.clauses.is_empty() {
        return None;
    }
    let args: Vec<&Expr> = list
        .args
        .iter()
        .map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Some(x),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let digits = args
        .iter()
        .enumerate()
        .map(|(i, a)| fraction_digits(a, i == 1))
        .max()?;
    let cast = Expr::Cast {
        kind: CastKind::Cast,
        expr: Box::new(args[0].clone()),
        data_type: DataType::Datetime(Some(digits.into())),
        format: None,
    };
    match args.as_slice() {
        [_] => Some(cast),
        [_, t] => {
            let mut call = f.clone();
            call.name = ObjectName::from(vec![Ident::new("ADDTIME")]);
            if let FunctionArguments::List(l) = &mut call.args {
                l.args = vec![
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(cast)),
                    FunctionArg::Unnamed(FunctionArgExpr::Expr((*t).clone())),
                ];
            }
            Some(Expr::Function(call))
        }
        _ => None,
    }
}

/// The fraction digits MariaDB reads a temporal function's argument with (its
/// `datetime_precision`, or `time_precision` for a `time`): a literal's as written (a string
/// that reads as no temporal 6), a cast's or a function's precision, a number's scale (a
/// whole one none), and 6 for what it cannot read before the rows (a string computed);
/// pinbad's columns are numbers and strings of no temporal, read as whole values.
fn fraction_digits(e: &Expr, time: bool) -> u8 {
    use super::dates::Kind;
    let written = |shown: &str| {
        shown
            .rsplit_once('.')
            .map_or(0, |(_, f)| {
                f.chars().take_while(char::is_ascii_digit).count()
            })
            .min(6) as u8
    };
    let number = |n: &str| {
        if n.contains(['e', 'E']) {
            6
        } else {
            written(n)
        }
    };
    match e {
        Expr::Nested(x) => fraction_digits(x, time),
        Expr::Value(v) => match &v.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => {
                let kind = if time { Kind::Time } else { Kind::DateTime };
                super::dates::literal(kind, s).map_or(6, |shown| written(&shown))
            }
            Value::Number(n, _) => number(n),
            _ => 0,
        },
        Expr::TypedString(ts) => match &ts.value.value {
            Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => written(s),
            _ => 0,
        },
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => 0,
        Expr::Cast { data_type, .. } => match data_type {
            DataType::Datetime(Some(n))
            | DataType::Time(Some(n), _)
            | DataType::Timestamp(Some(n), _) => (*n).min(6) as u8,
            DataType::Datetime(None)
            | DataType::Time(None, _)
            | DataType::Timestamp(None, _)
            | DataType::Date => 0,
            _ => typed_fraction_digits(e, time),
        },
        Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_uppercase();
            let args = typing::children(e);
            match name.as_str() {
                "NOW" | "CURRENT_TIMESTAMP" | "LOCALTIME" | "LOCALTIMESTAMP" | "SYSDATE"
                | "UTC_TIMESTAMP" | "CURTIME" | "CURRENT_TIME" | "UTC_TIME" => args
                    .first()
                    .and_then(|a| match a {
                        Expr::Value(v) => match &v.value {
                            Value::Number(n, _) => n.parse::<u8>().ok(),
                            _ => None,
                        },
                        _ => None,
                    })
                    .unwrap_or(0)
                    .min(6),
                "DATE" | "CURDATE" | "CURRENT_DATE" | "UTC_DATE" | "FROM_DAYS" | "MAKEDATE"
                | "LAST_DAY" => 0,
                "FROM_UNIXTIME" if args.len() == 1 => fraction_digits(args[0], false),
                "TIMESTAMP" | "ADDTIME" | "SUBTIME" => args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| fraction_digits(a, i == 1))
                    .max()
                    .unwrap_or(0),
                _ => typed_fraction_digits(e, time),
            }
        }
        _ => typed_fraction_digits(e, time),
    }
}

/// The fraction digits of an expression other than those [`fraction_digits`] reads by its
/// form, from its definition as typing finds it with no table known (MariaDB's
/// `datetime_precision`, its `decimals`: `DATE_FORMAT(…)`'s and an integer's 0, a DECIMAL's
/// scale); 6 where the definition does not say (a column's value decides).
fn typed_fraction_digits(e: &Expr, time: bool) -> u8 {
    let (_, meta) = typing::Scope::none().typed_into(e, &mut typing::Found::default());
    if time && super::coldef::adds_a_row_string(&meta, e) {
        return 6;
    }
    super::coldef::datetime_precision(&meta, e, time).map_or(6, |d| d.min(6) as u8)
}

fn is_charset_function(e: &Expr) -> bool {
    matches!(e, Expr::Function(f) if matches!(
        f.name.to_string().to_ascii_uppercase().as_str(),
        "CHARSET" | "COLLATION" | "COERCIBILITY"
    ))
}

/// MySQL's refusal of `x COLLATE collation` where the collation is not of `x`'s character set
/// (error 1253): `x` of type `ty`, what its form says of its collation (`written`: the server's
/// own strings are utf8mb3), `mb3` where it is of the connection's character set and that is
/// utf8mb3. A column's is utf8mb4, a binary string's `binary`; a number, a temporal or NULL
/// becomes a string of the connection's.
fn collated_charset(
    collation: &ObjectName,
    ty: Ty,
    written: Option<(u8, Option<&'static str>)>,
    mb3: bool,
) -> Option<(u16, String)> {
    let name = collation.to_string();
    let name = name.trim_matches(['`', '\'', '"']).to_ascii_lowercase();
    super::variables::collation(&name)?;
    let wanted = super::variables::charset_of(&name);
    let charset = match (ty, written) {
        (Ty::Binary, _) => "binary",
        (Ty::Other, _) => return None,
        (Ty::Text, Some((_, Some(c)))) => super::variables::charset_of(c),
        _ if mb3 => "utf8mb3",
        _ => "utf8mb4",
    };
    (wanted != charset).then(|| {
        let named = match name.strip_prefix("utf8_") {
            Some(rest) => format!("utf8mb3_{rest}"),
            None => name.clone(),
        };
        (
            1253,
            format!("COLLATION '{named}' is not valid for CHARACTER SET '{charset}'"),
        )
    })
}

/// The collation of the strings the server makes of its own names (MySQL's
/// `system_charset_info`).
const SYSTEM_COLLATION: &str = "utf8mb3_general_ci";

/// What the form of a string as written says of its derivation (MySQL's coercibility: 0 a
/// `COLLATE`, with its collation; 2 a column, a variable or a cast; 3 a system constant,
/// `USER()` and the like), where its form decides it.
fn written_derivation(e: &Expr) -> Option<(u8, Option<&'static str>)> {
    match e {
        Expr::Nested(inner) => written_derivation(inner),
        Expr::Collate { collation, .. } => {
            let name = collation
                .to_string()
                .trim_matches(['`', '\'', '"'])
                .to_ascii_lowercase();
            let mb3 = super::variables::charset_of(&name) == "utf8mb3";
            let named = super::variables::collation(&name);
            Some((
                0,
                named.map(|c| if mb3 { c.mysql_mb3() } else { c.mysql() }),
            ))
        }
        Expr::Cast { .. } => Some((2, None)),
        Expr::Identifier(i) if i.value.starts_with("@@") => Some((3, None)),
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) => Some((2, None)),
        // The server's own strings are in its system character set, utf8mb3 (MySQL's
        // `system_charset_info`): the names of users, schemas and collations.
        Expr::Function(f)
            if matches!(
                f.name.to_string().to_ascii_uppercase().as_str(),
                "USER"
                    | "CURRENT_USER"
                    | "SESSION_USER"
                    | "SYSTEM_USER"
                    | "DATABASE"
                    | "SCHEMA"
                    | "VERSION"
            ) =>
        {
            Some((3, Some(SYSTEM_COLLATION)))
        }
        Expr::Function(f)
            if matches!(
                f.name.to_string().to_ascii_uppercase().as_str(),
                "CHARSET" | "COLLATION"
            ) =>
        {
            Some((4, Some(SYSTEM_COLLATION)))
        }
        _ => None,
    }
}

/// `CHARSET(x)`, `COLLATION(x)` and `COERCIBILITY(x)`: what MySQL's typing says of `x` (its
/// type `ty`, its collation, and what its form says: `written`), known as the statement is
/// read, so written as a literal (`mb3`: `x` is of the connection's character set, and that
/// is utf8mb3). Left as it is (SQLite names it unknown: error 1105) where `x`'s type is not
/// known.
fn charset_function(
    expr: &mut Expr,
    ty: Ty,
    collated: Option<Collated>,
    written: Option<(u8, Option<&'static str>)>,
    mb3: bool,
) {
    let Expr::Function(f) = &*expr else { return };
    let name = f.name.to_string().to_ascii_uppercase();
    let explicit = written.and_then(|(_, c)| c);
    if ty == Ty::Other && explicit.is_none() {
        return;
    }
    let string = ty == Ty::Text || explicit.is_some_and(|c| c != "binary");
    let collation = match (explicit, collated.map(|c| c.name)) {
        (Some(c), _) => c,
        _ if !string => "binary",
        (_, name) => {
            let c = name
                .and_then(Collation::from_sqlite)
                .unwrap_or(Collation::General);
            if mb3 {
                c.mysql_mb3()
            } else {
                c.mysql()
            }
        }
    };
    // MySQL's derivations: 0 explicit, 2 implicit (a column), 3 a system constant, 4 coercible
    // (a literal), 5 a number or temporal, 6 NULL.
    let coercibility = match (ty, collated.map(|c| c.derivation), written) {
        (Ty::Null, ..) => 6,
        (Ty::Text | Ty::Binary | Ty::Other, _, Some((c, _))) => c,
        (Ty::Text, Some(Derivation::Explicit), None) => 0,
        (Ty::Text, Some(Derivation::Implicit), None) => 2,
        (Ty::Text | Ty::Binary, ..) => 4,
        _ => 5,
    };
    *expr = match name.as_str() {
        "CHARSET" => Expr::Value(
            Value::SingleQuotedString(
                if string {
                    collation.split('_').next().unwrap_or(collation)
                } else {
                    "binary"
                }
                .into(),
            )
            .into(),
        ),
        "COLLATION" => Expr::Value(Value::SingleQuotedString(collation.into()).into()),
        _ => Expr::Value(Value::Number(coercibility.to_string(), false).into()),
    };
}

/// The operations of `expr` (of type `ty`, of operands of types `kids`) that aggregate the
/// collations of their string operands, each by the name MySQL's errors give it and with its
/// operands' places among [`typing::children`]: comparisons whose operands are all strings (of
/// other types they compare as numbers or temporals), `LIKE`, and the string functions that
/// merge or search strings. A `CASE` has two: its compared values and its results.
fn aggregated_operands(expr: &Expr, ty: Ty, kids: &[Ty]) -> Vec<(String, Vec<usize>)> {
    let n = kids.len();
    let strings = kids.iter().all(|t| *t == Ty::Text);
    let all: Vec<usize> = (0..n).collect();
    let one = |name: &str, at: Vec<usize>| vec![(name.to_string(), at)];
    match expr {
        Expr::BinaryOp { op, .. } if strings => {
            use BinaryOperator as B;
            let name = match op {
                B::Eq => "=",
                B::NotEq => "<>",
                B::Lt => "<",
                B::LtEq => "<=",
                B::Gt => ">",
                B::GtEq => ">=",
                B::Spaceship => "<=>",
                _ => return Vec::new(),
            };
            one(name, all)
        }
        Expr::Between { .. } if strings => one("between", all),
        Expr::In { .. } if strings => one("in", all),
        Expr::Like { .. } => one("like", all),
        Expr::RLike { .. } => one("regexp", all),
        Expr::Position { .. } => one("locate", vec![1, 0]),
        Expr::Trim {
            trim_where,
            trim_what: Some(_),
            ..
        } => {
            use sqlparser::ast::TrimWhereField as W;
            let name = match trim_where {
                Some(W::Leading) => "ltrim",
                Some(W::Trailing) => "rtrim",
                _ => "trim",
            };
            one(name, all)
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            let first = usize::from(operand.is_some());
            let mut compared = Vec::new();
            if operand.is_some() {
                compared.push(0);
                compared.extend((0..conditions.len()).map(|k| first + 2 * k));
            }
            let results: Vec<usize> =
                typing::case_results(operand.is_some(), conditions.len(), else_result.is_some())
                    .collect();
            let mut groups = Vec::new();
            if compared.iter().all(|k| kids.get(*k) == Some(&Ty::Text)) && !compared.is_empty() {
                groups.push(("case".to_string(), compared));
            }
            if ty == Ty::Text {
                groups.push(("case".to_string(), results));
            }
            groups
        }
        Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_lowercase();
            let at: Vec<usize> = match name.as_str() {
                "concat" | "concat_ws" | "replace" | "strcmp" | "find_in_set"
                | "regexp_replace" | "regexp_substr" | "regexp_instr" => all,
                "instr" => {
                    return one("locate", all);
                }
                "locate" => {
                    return one("locate", vec![1, 0]);
                }
                "substring_index" => vec![0, 1],
                "lpad" | "rpad" => vec![0, 2],
                "insert" => vec![0, 3],
                "elt" | "make_set" => (1..n).collect(),
                "export_set" => (1..n.min(4)).collect(),
                "if" if ty == Ty::Text => (1..n).collect(),
                "ifnull" | "coalesce" if ty == Ty::Text => all,
                "nullif" => vec![0, 1],
                "greatest" | "least" | "field" if strings => all,
                _ => return Vec::new(),
            };
            one(&name, at)
        }
        _ => Vec::new(),
    }
}

/// Counts the SELECTs whose GROUP BY is `WITH ROLLUP`.
struct Rollups(usize);

impl VisitorMut for Rollups {
    type Break = ();

    fn pre_visit_select(&mut self, select: &mut Select) -> ControlFlow<()> {
        if matches!(&select.group_by, GroupByExpr::Expressions(_, m)
            if m.contains(&sqlparser::ast::GroupByWithModifier::Rollup))
        {
            self.0 += 1;
        }
        ControlFlow::Continue(())
    }
}

/// Whether `select` is one level of a [`rollup`] (its marks named `_pinbad_r{k}`): MariaDB
/// groups `WITH ROLLUP` by sorting, its sums in no temporary table.
fn is_rollup_level(select: &Select) -> bool {
    select.projection.iter().any(|i| {
        matches!(i, SelectItem::ExprWithAlias { alias, .. } if alias.value.starts_with("_pinbad_r"))
    })
}

/// `SELECT … GROUP BY g1, …, gn WITH ROLLUP [HAVING …] [LIMIT …]` as MariaDB answers it: the
/// groups, each level's super-aggregate rows (the rolled-up columns NULL, also in the select
/// list's expressions and the HAVING outside aggregates) after the groups they sum, the grand
/// total last (none over no rows), in the order of the GROUP BY columns. Made as a UNION ALL of
/// one grouped query per level, sorted by the levels' marks and the group values: still MySQL's
/// text, translated with the rest. `Err(why)` for the shapes it does not take: a GROUP BY item
/// that is not a column, a select item naming a column outside aggregates that is not a GROUP BY
/// column (its value in a super-aggregate row would be any row's), DISTINCT, UNION, and ORDER BY
/// (MariaDB refuses that too).
fn rollup(
    query: Query,
    rolls: usize,
    directions: &super::dialect::GroupDirections,
) -> Result<Box<Query>, String> {
    let SetExpr::Select(select) = query.body.as_ref() else {
        return Err("DISTINCT and UNION are not supported with it".into());
    };
    // MariaDB's `GROUP BY x DESC WITH ROLLUP`: the groups in that direction, each level's
    // super-aggregate row still after its groups.
    let written = group_directions(directions, select).unwrap_or(&[]);
    let direction = |k: usize| {
        if written.get(k).copied().flatten() == Some(true) {
            " DESC"
        } else {
            ""
        }
    };
    let GroupByExpr::Expressions(groups, modifiers) = &select.group_by else {
        return Err("only a SELECT's own GROUP BY can roll up".into());
    };
    if rolls > 1 || modifiers.as_slice() != [sqlparser::ast::GroupByWithModifier::Rollup] {
        return Err("only the query's own GROUP BY can roll up".into());
    }
    if query.order_by.is_some() {
        return Err("Incorrect usage of CUBE/ROLLUP and ORDER BY".into());
    }
    if select.distinct.is_some() {
        return Err("DISTINCT and UNION are not supported with it".into());
    }
    if select.from.is_empty() {
        return Err("it needs FROM".into());
    }
    let column = |e: &Expr| match e {
        Expr::Identifier(i) if !i.value.starts_with('@') => Some(i.value.to_ascii_lowercase()),
        Expr::CompoundIdentifier(p) => p.last().map(|i| i.value.to_ascii_lowercase()),
        _ => None,
    };
    // A GROUP BY item naming a select item's alias (`GROUP BY h` of `HOUR(…) AS h`), or its
    // position (`GROUP BY 1`), groups by that item's expression.
    let groups: Vec<Expr> = groups
        .iter()
        .map(|g| typing::listed_item(select, g).unwrap_or_else(|| g.clone()))
        .collect();
    // Each GROUP BY item: its column's name, or `""` for an expression (`grouped` holds it).
    let columns: Vec<String> = groups
        .iter()
        .map(|g| column(g).unwrap_or_default())
        .collect();
    let grouped: Vec<Option<Expr>> = groups
        .iter()
        .map(|g| column(g).is_none().then(|| g.clone()))
        .collect();
    // Each select item: its expression and its name.
    let mut items = Vec::new();
    for item in &select.projection {
        items.push(match item {
            SelectItem::ExprWithAlias { expr, alias } => (expr.clone(), alias.value.clone()),
            // A column, named by its last part (as written, unquoted).
            SelectItem::UnnamedExpr(expr) => match expr {
                Expr::Identifier(i) => (expr.clone(), i.value.clone()),
                Expr::CompoundIdentifier(p) if !p.is_empty() => {
                    (expr.clone(), p[p.len() - 1].value.clone())
                }
                _ => return Err("a select item could not be named".into()),
            },
            _ => return Err("`*` is not supported with it".into()),
        });
    }
    let names: Vec<String> = items.iter().map(|(_, n)| n.clone()).collect();
    let n = columns.len();
    let parse = |text: &str| {
        let tokens = Tokenizer::new(&MySql, text).tokenize_with_location()?;
        let (tokens, _) = super::dialect::mysql_clauses(tokens);
        Parser::new(&MySql)
            .with_tokens_with_locations(tokens)
            .parse_expr()
    };
    let mut levels = Vec::new();
    for kept in (0..=n).rev() {
        let mut level = select.clone();
        level.projection.clear();
        for (i, (expr, _)) in items.iter().enumerate() {
            level.projection.push(SelectItem::ExprWithAlias {
                expr: rolled(expr, &columns, &grouped, kept, &[])?,
                alias: Ident::new(format!("_pinbad_c{i}")),
            });
        }
        for (k, group) in groups.iter().enumerate() {
            let mark = Expr::Value(Value::Number(u8::from(k >= kept).to_string(), false).into());
            let value = if k < kept {
                group.clone()
            } else {
                Expr::Value(Value::Null.into())
            };
            level.projection.push(SelectItem::ExprWithAlias {
                expr: mark,
                // (Named so, the level is known as one: `is_rollup_level`.)
                alias: Ident::new(format!("_pinbad_r{k}")),
            });
            level.projection.push(SelectItem::ExprWithAlias {
                expr: value,
                alias: Ident::new(format!("_pinbad_g{k}")),
            });
        }
        level.group_by = GroupByExpr::Expressions(groups[..kept].to_vec(), Vec::new());
        let mut conditions = Vec::new();
        if let Some(having) = &select.having {
            conditions.push(Expr::Nested(Box::new(rolled(
                having, &columns, &grouped, kept, &names,
            )?)));
        }
        if kept == 0 {
            // The grand total is a group only where there are rows (none over no rows).
            conditions.push(parse("COUNT(*) > 0").map_err(|e| e.to_string())?);
        }
        level.having = conditions.into_iter().reduce(|a, b| Expr::BinaryOp {
            left: Box::new(a),
            op: BinaryOperator::And,
            right: Box::new(b),
        });
        levels.push(SetExpr::Select(level));
    }
    let body = levels
        .into_iter()
        .reduce(|left, right| SetExpr::SetOperation {
            left: Box::new(left),
            op: SetOperator::Union,
            set_quantifier: SetQuantifier::All,
            right: Box::new(right),
        })
        .ok_or("it needs GROUP BY")?;
    let outer = format!(
        "SELECT {} FROM (SELECT 1) AS _pinbad_rollup ORDER BY {}",
        (0..items.len())
            .map(|i| format!("_pinbad_c{i}"))
            .collect::<Vec<_>>()
            .join(", "),
        (0..n)
            .map(|k| format!("_pinbad_r{k}, _pinbad_g{k}{}", direction(k)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut parsed = Parser::parse_sql(&MySql, &outer).map_err(|e| e.to_string())?;
    let Some(Statement::Query(mut outer)) = parsed.pop() else {
        return Err("it could not be made".into());
    };
    let SetExpr::Select(wrapper) = outer.body.as_mut() else {
        return Err("it could not be made".into());
    };
    for (item, name) in wrapper.projection.iter_mut().zip(names) {
        if let SelectItem::UnnamedExpr(e) = item {
            *item = SelectItem::ExprWithAlias {
                expr: e.clone(),
                alias: Ident::with_quote('`', name),
            };
        }
    }
    let TableFactor::Derived { subquery, .. } = &mut wrapper.from[0].relation else {
        return Err("it could not be made".into());
    };
    *subquery.body = body;
    outer.with = query.with;
    outer.limit_clause = query.limit_clause;
    Ok(outer)
}

/// `expr` with the GROUP BY columns and expressions (`grouped`, by their text) past the first
/// `kept` as NULL outside aggregate calls (a super-aggregate row's value) and, in HAVING, a
/// select item's alias as that item's value at this level; `Err` where it names, outside
/// aggregates and GROUP BY expressions, a column that is not a GROUP BY column.
fn rolled(
    expr: &Expr,
    columns: &[String],
    grouped: &[Option<Expr>],
    kept: usize,
    aliases: &[String],
) -> Result<Expr, String> {
    struct Rolled<'a> {
        columns: &'a [String],
        grouped: &'a [Option<Expr>],
        kept: usize,
        aliases: &'a [String],
        /// How deep in aggregate calls.
        depth: usize,
    }
    /// What stands for GROUP BY expression `k` while the expression is walked.
    const HELD: &str = "_pinbad_held";
    fn aggregate(e: &Expr) -> bool {
        matches!(e, Expr::Function(f)
            if AGGREGATES.contains(&f.name.to_string().to_ascii_uppercase().as_str()))
    }
    impl VisitorMut for Rolled<'_> {
        type Break = String;

        fn pre_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<String> {
            if aggregate(e) {
                self.depth += 1;
            } else if self.depth == 0 {
                // A GROUP BY expression, whole: its value, or NULL once rolled up (held by a
                // name while its operands, which need not be GROUP BY columns, are walked).
                let text = e.to_string();
                let same = |g: &Option<Expr>| g.as_ref().is_some_and(|g| g.to_string() == text);
                if let Some(k) = self.grouped.iter().position(same) {
                    *e = Expr::Identifier(Ident::new(format!("{HELD}{k}")));
                }
            }
            ControlFlow::Continue(())
        }

        fn post_visit_expr(&mut self, e: &mut Expr) -> ControlFlow<String> {
            if aggregate(e) {
                self.depth -= 1;
                return ControlFlow::Continue(());
            }
            if self.depth > 0 {
                return ControlFlow::Continue(());
            }
            if let Expr::Identifier(i) = e {
                if let Some(k) = i
                    .value
                    .strip_prefix(HELD)
                    .and_then(|k| k.parse::<usize>().ok())
                {
                    *e = match (k < self.kept, self.grouped.get(k).cloned().flatten()) {
                        (true, Some(group)) => group,
                        _ => Expr::Value(Value::Null.into()),
                    };
                    return ControlFlow::Continue(());
                }
            }
            let name = match e {
                Expr::Identifier(i) if !i.value.starts_with('@') => i.value.to_ascii_lowercase(),
                Expr::CompoundIdentifier(p) => match p.last() {
                    Some(i) => i.value.to_ascii_lowercase(),
                    None => return ControlFlow::Continue(()),
                },
                _ => return ControlFlow::Continue(()),
            };
            if let Some(k) = self.columns.iter().position(|c| *c == name) {
                if k >= self.kept {
                    *e = Expr::Value(Value::Null.into());
                }
            } else if let Some(a) = self
                .aliases
                .iter()
                .position(|a| a.to_ascii_lowercase() == name)
            {
                *e = Expr::Identifier(Ident::new(format!("_pinbad_c{a}")));
            } else if !UNITS.contains(&name.to_ascii_uppercase().as_str()) {
                return ControlFlow::Break(format!(
                    "`{name}` is neither a GROUP BY column nor inside an aggregate"
                ));
            }
            ControlFlow::Continue(())
        }
    }
    let mut e = expr.clone();
    let mut rolled = Rolled {
        columns,
        grouped,
        kept,
        aliases,
        depth: 0,
    };
    match e.visit(&mut rolled) {
        ControlFlow::Continue(()) => Ok(e),
        ControlFlow::Break(why) => Err(why),
    }
}

/// Where an expression's children's types start in the visitor's list, its type where it was
/// known on entering it, and what typing found of it (its type and definition).
type Mark = (usize, Option<Ty>, Option<(Ty, Meta)>);

/// The rewriting visitor: it breaks on what it refuses, saying what in `refused`.
struct Rewrite<'a> {
    sql: &'a str,
    lines: &'a Lines,
    /// A recursive common table expression's body must stay a compound: no UNION is wrapped.
    recursive: bool,
    /// Why the statement is refused.
    refused: Option<String>,
    /// MySQL's error for the statement (its code and words), where MySQL refuses it too.
    error: Option<(u16, String)>,
    /// The collation string literals take: the connection's (`collation_connection`).
    literals: &'static str,
    /// The connection's character set is utf8mb3: a literal's `CHARSET` is it.
    literals_mb3: bool,
    /// The collation the operands of the expression being rewritten agree on (a
    /// `GROUP_CONCAT(DISTINCT …)`'s tells equal values apart by it).
    operands: Option<Collation>,
    /// The common table expressions in scope, typed: one entry per query with a `WITH` being
    /// visited.
    ctes: Vec<Ctes>,
    /// The columns of each SELECT being visited, innermost last.
    scopes: Vec<Scope>,
    /// For each SELECT in `scopes`: whether it names a column outside its aggregates
    /// ([`first_row_min_max`]).
    first_rows: Vec<bool>,
    /// The MySQL types of the expressions visited whose parent is not left yet: each node's
    /// children's types are on top when it is left ([`typing::children`]).
    types: Vec<Ty>,
    /// For each expression being visited: where its children's types start in `types`, and
    /// its type where it was known on entering it (a subquery's, typed from its query).
    marks: Vec<Mark>,
    /// What typing found of the expressions of the outermost one being visited, typed whole as
    /// it is entered (before any of it is rewritten): each one's type and definition.
    found: typing::Found,
    /// Beside each type in `types`, what typing found of that expression ([`typing::Found`]):
    /// a DOUBLE's fixed decimals, written where a string is read from it
    /// ([`typing::string_operands`]); an integer's width.
    fixed: Vec<Option<(Ty, Meta)>>,
    /// Beside each type in `types`, whether the expression's magnitude is not bounded by the
    /// data's ([`unbounded_source`]): where a DOUBLE's arithmetic may leave its range.
    wide: Vec<bool>,
    /// Each expression's collation beside its type in `types` (`None` for one not a string).
    collations: Vec<Option<Collated>>,
    /// For each SELECT being visited, its DECIMAL keys to round ([`decimal_keys`]).
    keys: Vec<DecimalKeys>,
    /// The SELECTs (by address) MariaDB reads as a table through a temporary table, with the
    /// DOUBLEs of fixed decimals it stores there ([`typing::double_fields`]), found as the
    /// derived table or common table expression holding one is entered.
    double_fields: Vec<(usize, Vec<typing::DoubleField>)>,
    /// For each `CHARSET`/`COLLATION`/`COERCIBILITY` call being visited, what its argument's
    /// form says ([`written_derivation`]), read before the argument is translated.
    charset_args: Vec<Option<(u8, Option<&'static str>)>>,
    /// The type of the expression last translated at each address: a `WHERE` or `HAVING`
    /// condition's, read in `post_visit_select` (a TIME as a truth is its number).
    typed: std::collections::HashMap<usize, Ty>,
    /// For each query being visited, where its `ORDER BY` terms are (their addresses, taken as
    /// it is entered) and, for its SELECT's list, each item's address and type once typed:
    /// what [`order_by_keys`] sorts by.
    ordered: Vec<Ordered>,
}

/// A query's `ORDER BY` terms and select list items, found by their addresses in the tree
/// ([`typing::Found::key`]) while it is visited.
#[derive(Default)]
struct Ordered {
    terms: Vec<usize>,
    items: Vec<(usize, Option<Ty>)>,
    /// The address of the query's SELECT, where its body is one: its columns' scope is kept
    /// (`kept`) until the query is left, so that `ORDER BY` (visited after it) reads them.
    select: Option<usize>,
    kept: bool,
}

/// A grouped or DISTINCT select's DECIMAL keys, each with its scale: the select list items
/// and the GROUP BY expressions (by position) whose values may hold more digits than their
/// scale (a quotient's).
#[derive(Default)]
struct DecimalKeys {
    items: Vec<(usize, u8)>,
    groups: Vec<(usize, u8)>,
    /// Whether the select's `SUM`s and `AVG`s are added up in a temporary table's DECIMAL
    /// fields of their argument's scale ([`typing::groups_in_a_temporary_table`]): MariaDB's
    /// `update_field` stores each running sum there, so each value added counts rounded to that
    /// scale (`SUM(status / 7)` grouped by host adds 28.5714 for 200, not 28.571428571).
    sums_stored: bool,
}

/// Where MariaDB groups (or takes `DISTINCT` of) rows in a temporary table
/// ([`typing::keys_in_a_temporary_table`]; not where it groups them by sorting), it groups a
/// DECIMAL by its value there, a DECIMAL column of its scale: `1 / timer_id` (scale 4) groups
/// 0.00012 and 0.00009 as one 0.0001. pinbad computes a quotient with MySQL's intermediate digits (rounded
/// to its scale only when sent), so each such key is rounded to its scale where it is read: the
/// select list item (which `GROUP BY n` and an alias name) and a GROUP BY expression of its
/// own. A column, a literal or an aggregate has no digits past its scale.
fn decimal_keys(select: &Select, scope: &Scope) -> DecimalKeys {
    let sums_stored = typing::groups_in_a_temporary_table(select) && !is_rollup_level(select);
    if !typing::keys_in_a_temporary_table(select) {
        return DecimalKeys {
            sums_stored,
            ..DecimalKeys::default()
        };
    }
    let groups = match &select.group_by {
        GroupByExpr::Expressions(g, _) => g.as_slice(),
        GroupByExpr::All(_) => &[],
    };
    let key = |e: &Expr| match e {
        Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Value(_) => None,
        e if is_aggregate(e) => None,
        e => match scope.type_of(e) {
            Ty::Dec(s) if s > 0 => Some(s),
            _ => None,
        },
    };
    let mut keys = DecimalKeys {
        sums_stored,
        ..DecimalKeys::default()
    };
    for (k, item) in select.projection.iter().enumerate() {
        if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = item {
            if let Some(s) = key(e) {
                keys.items.push((k, s));
            }
        }
    }
    for (k, g) in groups.iter().enumerate() {
        if let Some(s) = key(g) {
            keys.groups.push((k, s));
        }
    }
    keys
}

/// The DOUBLEs of fixed decimals `query`'s SELECT stores where MariaDB materializes it
/// ([`typing::double_fields`]), by the SELECT's address: stored so where it is left
/// (`post_visit_select`).
fn double_fields_at(
    query: &Query,
    ctes: &typing::Ctes,
) -> Option<(usize, Vec<typing::DoubleField>)> {
    let (select, fields) = typing::double_fields(query, ctes)?;
    Some((std::ptr::from_ref::<Select>(select) as usize, fields))
}

/// `e` rounded to `scale` digits, a DECIMAL (MySQL's 65 digits at most).
fn round_to_scale(e: &mut Expr, scale: u8) {
    *e = raw(format!("mysql_decimal({e}, {scale}, 65)"));
}

/// The session's variables that change what a query means (see `variables::Context`), applied
/// to MySQL's tree before it is translated: `default_week_format` as `WEEK(d)`'s mode, and
/// `PIPES_AS_CONCAT`'s `||` as `CONCAT`. (`@@time_zone` is read by the date functions
/// themselves: `dates::zone_offset`.)
struct SessionRules<'a> {
    context: &'a Context,
}

impl VisitorMut for SessionRules<'_> {
    type Break = ();

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if let Expr::BinaryOp {
            left,
            op: BinaryOperator::StringConcat,
            right,
        } = expr
        {
            if self.context.pipes_as_concat {
                let args = vec![(**left).clone(), (**right).clone()];
                *expr = call("CONCAT", args);
            }
            return ControlFlow::Continue(());
        }
        let Expr::Function(f) = expr else {
            return ControlFlow::Continue(());
        };
        let up = f.name.to_string().to_ascii_uppercase();
        let args = match &mut f.args {
            FunctionArguments::List(list) => Some(&mut list.args),
            _ => None,
        };
        let arity = args.as_ref().map_or(0, |a| a.len());
        if up == "WEEK" && arity == 1 && self.context.week_format != 0 {
            if let Some(args) = args {
                let mode = self.context.week_format.to_string();
                args.push(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(
                    Value::Number(mode, false).into(),
                ))));
            }
        }
        ControlFlow::Continue(())
    }
}

/// The first name in `select`'s `WHERE` (outside its subqueries) that is a select list alias
/// and no column of its tables ([`Scope::alias_only`]): MySQL reads a `WHERE` before the
/// select list, and knows no alias there.
fn alias_in_where(select: &mut Select, scope: &Scope) -> Option<String> {
    let mut found = None;
    let _ = select
        .selection
        .visit(&mut Depths::new(false, |expr: &mut Expr, depth| {
            if let Expr::Identifier(i) = expr {
                if depth == 0 && !i.value.starts_with('@') && scope.alias_only(&i.value) {
                    found = Some(i.value.clone());
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        }));
    found
}

/// Visits a clause's expressions, each after what it holds, with how deep it lies in
/// subqueries (and, where `aggregates`, in aggregate calls' arguments): a name at depth 0 is
/// the clause's own, not a subquery's or an aggregate's column.
struct Depths<F> {
    depth: usize,
    aggregates: bool,
    at: F,
}

impl<F: FnMut(&mut Expr, usize) -> ControlFlow<()>> Depths<F> {
    fn new(aggregates: bool, at: F) -> Depths<F> {
        Depths {
            depth: 0,
            aggregates,
            at,
        }
    }
}

impl<F: FnMut(&mut Expr, usize) -> ControlFlow<()>> VisitorMut for Depths<F> {
    type Break = ();
    fn pre_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
        self.depth += 1;
        ControlFlow::Continue(())
    }
    fn post_visit_query(&mut self, _: &mut Query) -> ControlFlow<()> {
        self.depth -= 1;
        ControlFlow::Continue(())
    }
    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if self.aggregates && is_aggregate(expr) {
            self.depth += 1;
        }
        ControlFlow::Continue(())
    }
    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if self.aggregates && is_aggregate(expr) {
            self.depth -= 1;
        }
        (self.at)(expr, self.depth)
    }
}

/// `ROW(a, b)`, MySQL's row constructor, is the row `(a, b)`.
struct RowConstructors;

impl VisitorMut for RowConstructors {
    type Break = ();

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        let Expr::Function(f) = expr else {
            return ControlFlow::Continue(());
        };
        let FunctionArguments::List(list) = &f.args else {
            return ControlFlow::Continue(());
        };
        if !f.name.to_string().eq_ignore_ascii_case("ROW")
            || f.over.is_some()
            || list.args.len() < 2
            || list.duplicate_treatment.is_some()
            || !list.clauses.is_empty()
        {
            return ControlFlow::Continue(());
        }
        let items: Option<Vec<Expr>> = list
            .args
            .iter()
            .map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e.clone()),
                _ => None,
            })
            .collect();
        if let Some(items) = items {
            *expr = Expr::Tuple(items);
        }
        ControlFlow::Continue(())
    }
}

/// MySQL's error for an index hint naming an index (`FORCE INDEX (PRIMARY)`, `USE KEY (k)`):
/// pinbad's tables have none (`SHOW INDEX` lists none), so the first table in `FROM` with such
/// a hint names its last index (MariaDB keeps a table's hints last first), under the name the
/// statement gives the table. `USE INDEX ()` names none and is only a plan's hint.
fn missing_index(select: &Select) -> Option<(u16, String)> {
    let mut factors = select
        .from
        .iter()
        .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)));
    factors.find_map(|factor| {
        let TableFactor::Table {
            name,
            alias,
            index_directives,
            ..
        } = factor
        else {
            return None;
        };
        let index = index_directives.iter().rev().find_map(|d| match d {
            sqlparser::ast::TableIndexDirective::MySql(h) => h.index_names.last(),
            _ => None,
        })?;
        let table = match (alias, name.0.last()) {
            (Some(a), _) => a.name.value.clone(),
            (None, Some(ObjectNamePart::Identifier(i))) => i.value.clone(),
            (None, _) => name.to_string(),
        };
        Some((
            1176,
            format!("Key '{}' doesn't exist in table '{table}'", index.value),
        ))
    })
}

/// The first thing in `query` that MySQL has not and this engine has: a call of one of
/// SQLite's own functions or the translation's helpers, a table of SQLite's schema
/// (`sqlite_master`, `pragma_table_info`) or a table-valued function (`json_each(…)`).
/// MySQL's error for it, as no translation may answer it.
fn not_mysql_call(query: &mut Query) -> Option<(u16, String)> {
    struct Calls(Option<(u16, String)>);
    impl VisitorMut for Calls {
        type Break = ();
        fn pre_visit_table_factor(&mut self, table: &mut TableFactor) -> ControlFlow<()> {
            let TableFactor::Table { name, args, .. } = table else {
                return ControlFlow::Continue(());
            };
            let last = name.0.last().map(|p| p.to_string()).unwrap_or_default();
            let lower = last.trim_matches('`').to_ascii_lowercase();
            if args.is_some() {
                self.0 = Some((
                    1064,
                    format!("You have an error in your SQL syntax: {name}(…) is not a table"),
                ));
            } else if lower.starts_with("sqlite_") || lower.starts_with("pragma_") {
                let table = if name.0.len() > 1 {
                    name.to_string().replace('`', "")
                } else {
                    format!("pinba.{}", last.trim_matches('`'))
                };
                self.0 = Some((1146, format!("Table '{table}' doesn't exist")));
            }
            if self.0.is_some() {
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        }
        fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
            if let Expr::Function(f) = expr {
                if let [ObjectNamePart::Identifier(name)] = f.name.0.as_slice() {
                    self.0 = super::functions::not_mysql(&name.value);
                    if self.0.is_some() {
                        return ControlFlow::Break(());
                    }
                }
            }
            ControlFlow::Continue(())
        }
    }
    let mut calls = Calls(None);
    let _ = query.visit(&mut calls);
    calls.0
}

/// A column compared with a string literal compares by the column's collation, as MySQL's
/// coercibility rules have it (a column's collation wins over the connection's): the literal's
/// collation (`literals`: `SET NAMES … COLLATE utf8mb4_bin`) gives way to the columns' own.
fn column_collation_wins(left: &mut Expr, right: &mut Expr, literals: &str) {
    let to_columns = |e: &mut Expr| {
        if let Expr::Collate { expr, collation } = e {
            if matches!(expr.as_ref(), Expr::Value(_)) && collation.to_string() == literals {
                *collation = ObjectName::from(vec![Ident::new(super::collation::NAME)]);
            }
        }
    };
    if is_column(left) {
        to_columns(right);
    }
    if is_column(right) {
        to_columns(left);
    }
}

/// `ONLY_FULL_GROUP_BY` as MariaDB checks it: in a grouped SELECT, each select list item
/// that is not a GROUP BY item (by its text, alias or position) names, outside aggregate calls
/// and subqueries, only GROUP BY columns (error 1055 names the first other); a SELECT with
/// aggregates and no GROUP BY names no column outside them (error 1140).
struct FullGroupBy(Option<(u16, String)>);

impl VisitorMut for FullGroupBy {
    type Break = ();

    fn pre_visit_select(&mut self, select: &mut Select) -> ControlFlow<()> {
        let groups = match &select.group_by {
            GroupByExpr::Expressions(g, _) => g.clone(),
            GroupByExpr::All(_) => return ControlFlow::Continue(()),
        };
        let name = |e: &Expr| match e {
            Expr::Identifier(i) if !i.value.starts_with('@') => Some(i.value.to_ascii_lowercase()),
            Expr::CompoundIdentifier(p) => p.last().map(|i| i.value.to_ascii_lowercase()),
            _ => None,
        };
        let grouped_columns: Vec<String> = groups.iter().filter_map(name).collect();
        let texts: Vec<String> = groups
            .iter()
            .map(|g| g.to_string().to_ascii_lowercase())
            .collect();
        let table = match select.from.as_slice() {
            [only] if only.joins.is_empty() => match &only.relation {
                TableFactor::Table { name, .. } => name.0.last().map(|p| p.to_string()),
                _ => None,
            },
            _ => None,
        };
        for (k, item) in select.projection.iter().enumerate() {
            let (expr, alias) = match item {
                SelectItem::UnnamedExpr(e) => (e, None),
                SelectItem::ExprWithAlias { expr, alias } => {
                    (expr, Some(alias.value.to_ascii_lowercase()))
                }
                _ => continue,
            };
            let text = expr.to_string().to_ascii_lowercase();
            let position = (k + 1).to_string();
            if texts
                .iter()
                .any(|t| *t == text || Some(t) == alias.as_ref() || *t == position)
            {
                continue;
            }
            let (found, aggregated) = loose_column(expr);
            let Some(column) = found else { continue };
            if groups.is_empty() {
                if aggregated || select_has_aggregate(select) {
                    self.0 = Some((
                        1140,
                        "Mixing of GROUP columns (MIN(),MAX(),COUNT(),...) with no GROUP columns \
                         is illegal if there is no GROUP BY clause"
                            .into(),
                    ));
                    return ControlFlow::Break(());
                }
                continue;
            }
            if !grouped_columns.contains(&column.to_ascii_lowercase()) {
                let qualified = match &table {
                    Some(t) => format!("pinba.{t}.{column}"),
                    None => column,
                };
                self.0 = Some((1055, format!("'{qualified}' isn't in GROUP BY")));
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }
}

/// Whether `e` calls an aggregate as one (not as a window function).
pub(super) fn is_aggregate(e: &Expr) -> bool {
    matches!(e, Expr::Function(f)
        if AGGREGATES.contains(&f.name.to_string().to_ascii_uppercase().as_str()) && f.over.is_none())
}

/// The first column `e` names outside aggregate calls and subqueries, and whether it holds an
/// aggregate call.
fn loose_column(e: &Expr) -> (Option<String>, bool) {
    let (mut found, mut aggregates) = (None, false);
    let _ = e
        .clone()
        .visit(&mut Depths::new(true, |e: &mut Expr, depth| {
            aggregates |= is_aggregate(e);
            if depth == 0 && found.is_none() {
                match e {
                    Expr::Identifier(i)
                        if !i.value.starts_with('@') && i.quote_style != Some('\'') =>
                    {
                        found = Some(i.value.clone())
                    }
                    Expr::CompoundIdentifier(p) => found = p.last().map(|i| i.value.clone()),
                    _ => {}
                }
            }
            ControlFlow::Continue(())
        }));
    (found, aggregates)
}

/// Whether a SELECT names a column outside its aggregates (and subqueries) in its list (a `*`
/// does) or its `HAVING`.
fn names_loose_columns(select: &Select) -> bool {
    let loose = |e: &Expr| loose_column(e).0.is_some();
    select.projection.iter().any(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => loose(e),
        _ => true,
    }) || select.having.as_ref().is_some_and(loose)
}

/// A `MIN` or `MAX` (translated) of a SELECT that names a column outside its aggregates
/// ([`names_loose_columns`]) as [`aggregates::first_row_min_max`]'s of the collation its value
/// (`collated`) compares by. Beside SQLite's own, such a column is read from the row their
/// value came from; MariaDB, as SQLite beside any other aggregate, reads the group's first row
/// (`SELECT script_name, hostname, MAX(req_time) … GROUP BY script_name`).
fn first_row_min_max(expr: &mut Expr, collated: Option<Collated>) {
    let min_or_max = |call: &str| -> Option<bool> {
        let name = call.get(..3)?;
        let greatest = name.eq_ignore_ascii_case("MAX");
        (greatest || name.eq_ignore_ascii_case("MIN")).then_some(greatest)
    };
    match expr {
        Expr::Function(f) if f.over.is_none() && f.name.0.len() == 1 => {
            let name = f.name.to_string();
            let Some(greatest) = min_or_max(&name).filter(|_| name.len() == 3) else {
                return;
            };
            let by = collated
                .and_then(|c| Collation::from_sqlite(c.name))
                .unwrap_or(Collation::Binary);
            let name = super::aggregates::first_row_min_max(greatest, by);
            f.name = ObjectName::from(vec![Ident::new(name)]);
        }
        // A key's (`decimals`, `unsigned`: the keys compare as SQLite's bytes and numbers).
        Expr::Identifier(i) if i.quote_style.is_none() => {
            for wrapper in [
                "mysql_decimal_unkey(",
                "mysql_time_unkey(",
                "mysql_unsigned_flip(",
            ] {
                let Some(rest) = i.value.strip_prefix(wrapper) else {
                    continue;
                };
                let Some(greatest) = min_or_max(rest).filter(|_| rest.get(3..4) == Some("("))
                else {
                    continue;
                };
                let name = super::aggregates::first_row_min_max(greatest, Collation::Binary);
                i.value = format!("{wrapper}{name}{}", &rest[3..]);
                return;
            }
        }
        _ => {}
    }
}

/// What a string function's result takes its collation from (MariaDB's functions).
enum Made {
    /// utf8mb4_bin, coercible (`JSON_UNQUOTE`).
    Bin,
    /// The connection's collation, coercible, whatever its arguments: what is made of digits,
    /// hex, names of days and the like (MariaDB's `Item_str_ascii_func`s, `FORMAT`, temporals
    /// as strings).
    Connection,
    /// Its arguments at these places (among `typing::children`), as MySQL's rules aggregate
    /// them: those its value is made of, not its counts and positions.
    Of(Vec<usize>),
}

/// What function `name`'s string result (of `args` arguments) takes its collation from.
fn result_strings(name: &str, args: usize) -> Made {
    let from = |k: usize| Made::Of((k..args).collect());
    match name {
        "JSON_UNQUOTE" => Made::Bin,
        "HEX" | "MD5" | "SHA" | "SHA1" | "SHA2" | "TO_BASE64" | "CONV" | "BIN" | "OCT"
        | "INET_NTOA" | "INET6_NTOA" | "FORMAT" | "DAYNAME" | "MONTHNAME" | "DATE_ADD"
        | "DATE_SUB" | "ADDDATE" | "SUBDATE" | "ADDTIME" | "SUBTIME" | "SPACE" => Made::Connection,
        // A name the server makes (MariaDB's utf8mb3, coercible: as a literal compares).
        "CHARSET" | "COLLATION" => Made::Connection,
        // The format's.
        "DATE_FORMAT" | "TIME_FORMAT" | "FROM_UNIXTIME" if args > 1 => Made::Of(vec![1]),
        "LEFT" | "RIGHT" | "REPEAT" | "SUBSTR" | "SUBSTRING" | "MID" | "NULLIF" => {
            Made::Of(vec![0])
        }
        "LPAD" | "RPAD" => Made::Of(vec![0, 2]),
        "INSERT" => Made::Of(vec![0, 3]),
        "IF" | "ELT" | "MAKE_SET" | "EXPORT_SET" => from(1),
        _ => from(0),
    }
}

/// Whether a SELECT's list calls an aggregate (outside subqueries).
fn select_has_aggregate(select: &Select) -> bool {
    select.projection.iter().any(|item| {
        let e = match item {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
            _ => return false,
        };
        loose_column(e).1
    })
}

/// A call of MySQL's function `name` (an `Ident` keeps where the client wrote it) with `args`.
pub(super) fn call(name: impl Into<Ident>, args: Vec<Expr>) -> Expr {
    Expr::Function(sqlparser::ast::Function {
        name: ObjectName::from(vec![name.into()]),
        uses_odbc_syntax: false,
        parameters: FunctionArguments::None,
        args: FunctionArguments::List(sqlparser::ast::FunctionArgumentList {
            duplicate_treatment: None,
            args: args
                .into_iter()
                .map(|e| FunctionArg::Unnamed(FunctionArgExpr::Expr(e)))
                .collect(),
            clauses: Vec::new(),
        }),
        within_group: Vec::new(),
        filter: None,
        null_treatment: None,
        over: None,
    })
}

/// A percentile call ([`Percentiles`]) made `aggregates`' window function, given its
/// arguments' types (`kids`: the fraction, the ordered value, the direction): the fraction must
/// be a number (MariaDB's error 4104) and, for `PERCENTILE_CONT`, the value too (4101); a
/// `PERCENTILE_DISC` compares its values as numbers or as text by their type. `Err` with
/// MySQL's error, or the words of what pinbad refuses (a TIME's, a temporal interpolated).
fn percentile_call(expr: &mut Expr, kids: &[Ty]) -> Result<(), (u16, String)> {
    let Expr::Function(f) = expr else {
        return Ok(());
    };
    let cont = match f.name.to_string().as_str() {
        "PERCENTILE_CONT" => true,
        "PERCENTILE_DISC" => false,
        _ => return Ok(()),
    };
    let what = if cont {
        "percentile_cont"
    } else {
        "percentile_disc"
    };
    let (Some(p), Some(x), FunctionArguments::List(list)) =
        (kids.first(), kids.get(1), &mut f.args)
    else {
        return Ok(());
    };
    if matches!(p, Ty::Null | Ty::Text | Ty::Binary) {
        return Err((
            4104,
            format!(
                "{what} function only accepts arguments that can be converted to numerical types"
            ),
        ));
    }
    let numeric = match x {
        // (`Other`: not followed here, read as SQLite has it.)
        Ty::Int | Ty::UInt | Ty::Dec(_) | Ty::Double | Ty::Other => true,
        Ty::Null | Ty::Text | Ty::Binary if cont => {
            return Err((
                4101,
                format!("Numeric datatype is required for {what} function"),
            ));
        }
        Ty::Null | Ty::Text | Ty::Binary | Ty::Date | Ty::DateTime if !cont => false,
        _ => {
            return Err((
                1235,
                format!("{what} of this type is not supported by pinbad"),
            ))
        }
    };
    if !cont {
        list.args
            .push(FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(
                Value::Number(u8::from(numeric).to_string(), false).into(),
            ))));
    }
    f.name = ObjectName::from(vec![Ident::new(format!("mysql_{what}"))]);
    Ok(())
}

/// MariaDB's rule for a named lock's name: a string (or NULL); a number or a temporal is error
/// 4079 naming its type (`GET_LOCK(1, 0)`: "Illegal parameter data type int for operation
/// 'get_lock'").
fn lock_name_refused(expr: &Expr, kids: &[Ty], metas: &[Meta]) -> Option<String> {
    let Expr::Function(f) = expr else {
        return None;
    };
    let name = f.name.to_string().to_ascii_lowercase();
    if !matches!(
        name.as_str(),
        "get_lock" | "release_lock" | "is_free_lock" | "is_used_lock"
    ) {
        return None;
    }
    let meta = metas.first();
    let ty = match kids.first()? {
        Ty::Int | Ty::UInt => {
            let int = match meta.map(|m| m.code) {
                Some(Code::Long) => "int",
                _ => "bigint",
            };
            match meta.is_some_and(|m| m.unsigned) || kids[0] == Ty::UInt {
                true => format!("{int} unsigned"),
                false => int.to_string(),
            }
        }
        Ty::Dec(_) => "decimal".into(),
        Ty::Double if meta.is_some_and(|m| m.code == Code::Float) => "float".into(),
        Ty::Double => "double".into(),
        Ty::Date => "date".into(),
        Ty::DateTime => "datetime".into(),
        Ty::Time => "time".into(),
        _ => return None,
    };
    Some(format!(
        "Illegal parameter data type {ty} for operation '{name}'"
    ))
}

impl VisitorMut for Rewrite<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        if query.with.as_ref().is_some_and(|w| w.recursive) {
            self.recursive = true;
        }
        if query.fetch.is_some()
            || query.for_clause.is_some()
            || query.settings.is_some()
            || query.format_clause.is_some()
            || !query.pipe_operators.is_empty()
        {
            return self.refuse("FETCH, FOR XML/JSON, SETTINGS, FORMAT and pipe operators");
        }
        // `FOR UPDATE`, `LOCK IN SHARE MODE`: nothing to lock.
        query.locks.clear();
        // MySQL's `LIMIT` and `OFFSET` take an unsigned integer as written, or a bound
        // parameter: anything else (`LIMIT '5'`, `-1`, `1+1`, `@a`, `2.5`) is a syntax error,
        // where SQLite's would answer (`LIMIT -1`: every row).
        let counts: Vec<&Expr> = match &query.limit_clause {
            Some(LimitClause::LimitOffset { limit, offset, .. }) => limit
                .iter()
                .chain(offset.as_ref().map(|o| &o.value))
                .collect(),
            Some(LimitClause::OffsetCommaLimit { offset, limit }) => vec![offset, limit],
            None => Vec::new(),
        };
        if let Some(bad) = counts
            .into_iter()
            .find(|e| !is_row_count(e, self.sql, self.lines))
        {
            let near = expr_text(bad, self.sql, self.lines).unwrap_or_else(|| bad.to_string());
            self.error = Some((1064, syntax_error_near(&near)));
            return ControlFlow::Break(());
        }
        // `LIMIT n, 18446744073709551615` (MySQL's "all the rest"): a count past SQLite's
        // integers is none (SQLite's -1).
        let unbounded = |e: &mut Expr| {
            if let Expr::Value(v) = e {
                if let Value::Number(n, _) = &v.value {
                    if n.parse::<i64>().is_err() && n.bytes().all(|b| b.is_ascii_digit()) {
                        *e = raw("-1".into());
                    }
                }
            }
        };
        match &mut query.limit_clause {
            Some(LimitClause::LimitOffset {
                limit: Some(limit), ..
            }) => unbounded(limit),
            Some(LimitClause::OffsetCommaLimit { limit, .. }) => unbounded(limit),
            _ => {}
        }
        if let Some(with) = &query.with {
            let outer = self.ctes.last().map_or(0, Vec::len);
            let typed = typing::ctes_of(query, self.ctes.last().unwrap_or(&Vec::new()));
            for (k, cte) in with.cte_tables.iter().enumerate() {
                let before = &typed[..(outer + k).min(typed.len())];
                self.double_fields
                    .extend(double_fields_at(&cte.query, &before.to_vec()));
            }
            self.ctes.push(typed);
        }
        let terms = match &query.order_by {
            Some(OrderBy {
                kind: OrderByKind::Expressions(by),
                ..
            }) => by.iter().map(|o| typing::Found::key(&o.expr)).collect(),
            _ => Vec::new(),
        };
        let items = match query.body.as_ref() {
            SetExpr::Select(select) => select
                .projection
                .iter()
                .map(|item| match item {
                    SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                        (typing::Found::key(e), None)
                    }
                    _ => (0, None),
                })
                .collect(),
            _ => Vec::new(),
        };
        let select = match query.body.as_ref() {
            SetExpr::Select(select) => Some(&**select as *const Select as usize),
            _ => None,
        };
        self.ordered.push(Ordered {
            terms,
            items,
            select,
            kept: false,
        });
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        if let Some(ordered) = self.ordered.pop() {
            order_by_keys(query, &ordered.items);
            if ordered.kept {
                self.scopes.pop();
                self.first_rows.pop();
            }
        }
        if unparenthesize(query).is_break() {
            return self.refuse("a parenthesized query of this shape");
        }
        if query.with.is_some() {
            self.ctes.pop();
        }
        if !self.recursive && distinct_union(&mut query.body).is_break() {
            return self.refuse("INTERSECT ALL or EXCEPT ALL");
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_select(&mut self, select: &mut Select) -> ControlFlow<()> {
        if select.into.is_some()
            || select.top.is_some()
            || select.exclude.is_some()
            || !select.lateral_views.is_empty()
            || select.prewhere.is_some()
            || !select.connect_by.is_empty()
            || !select.cluster_by.is_empty()
            || !select.distribute_by.is_empty()
            || !select.sort_by.is_empty()
            || select.qualify.is_some()
            || select.value_table_mode.is_some()
        {
            return self.refuse(if select.into.is_some() {
                "SELECT … INTO"
            } else {
                "TOP, EXCLUDE, LATERAL VIEW, PREWHERE, CONNECT BY, QUALIFY and the like"
            });
        }
        match &select.group_by {
            GroupByExpr::Expressions(_, modifiers) if modifiers.is_empty() => {}
            _ => return self.refuse("GROUP BY ALL, WITH CUBE and GROUPING SETS"),
        }
        // `SQL_CALC_FOUND_ROWS`, `HIGH_PRIORITY`, …: nothing for SQLite.
        select.select_modifiers = None;
        // `FROM DUAL`: no table.
        if let [only] = select.from.as_slice() {
            if let TableFactor::Table {
                name, alias: None, ..
            } = &only.relation
            {
                if only.joins.is_empty()
                    && matches!(name.0.as_slice(), [ObjectNamePart::Identifier(i)]
                        if i.quote_style.is_none() && i.value.eq_ignore_ascii_case("DUAL"))
                {
                    select.from.clear();
                }
            }
        }
        select.optimizer_hints.clear();
        for table in &mut select.from {
            for join in &mut table.joins {
                if let JoinOperator::StraightJoin(c) = &join.join_operator {
                    join.join_operator = JoinOperator::Inner(c.clone());
                }
            }
        }
        let scope = Scope::of_select(select, self.ctes.last().unwrap_or(&Vec::new()));
        if scope.knows_every_table() {
            if let Some(e) = missing_index(select) {
                self.error = Some(e);
                return ControlFlow::Break(());
            }
        }
        if self.scopes.is_empty() {
            if let Some(name) = alias_in_where(select, &scope) {
                self.error = Some((1054, format!("Unknown column '{name}' in 'WHERE'")));
                return ControlFlow::Break(());
            }
        }
        having_reads_aliases(select);
        having_as_where(select);
        self.keys.push(decimal_keys(select, &scope));
        self.scopes.push(scope);
        self.first_rows.push(names_loose_columns(select));
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, table: &mut TableFactor) -> ControlFlow<()> {
        // Index hints: SQLite plans on its own.
        if let TableFactor::Table {
            index_directives, ..
        } = table
        {
            index_directives.clear();
        }
        if let TableFactor::Derived { subquery, .. } = table {
            let none = Vec::new();
            let outer = self.ctes.last().unwrap_or(&none);
            self.double_fields.extend(double_fields_at(subquery, outer));
        }
        ControlFlow::Continue(())
    }

    fn post_visit_select(&mut self, select: &mut Select) -> ControlFlow<()> {
        // The query's own SELECT: its `ORDER BY` comes next, naming its columns.
        if let Some(ordered) = self
            .ordered
            .last_mut()
            .filter(|o| o.select == Some(&*select as *const Select as usize))
        {
            ordered.kept = true;
        } else {
            self.scopes.pop();
            self.first_rows.pop();
        }
        // A TIME as the condition is its number (`time_truths`).
        for condition in [select.selection.as_mut(), select.having.as_mut()]
            .into_iter()
            .flatten()
        {
            let at = std::ptr::from_ref::<Expr>(condition) as usize;
            if self.typed.get(&at) == Some(&Ty::Time) {
                wrap_in(condition, "mysql_temporal_number");
            }
        }
        let at = std::ptr::from_ref::<Select>(select) as usize;
        if let Some(k) = self.double_fields.iter().position(|(a, _)| *a == at) {
            for (k, length, decimals) in self.double_fields.swap_remove(k).1 {
                if let Some(
                    SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. },
                ) = select.projection.get_mut(k)
                {
                    *e = raw(format!("mysql_double_field({e}, {length}, {decimals})"));
                }
            }
        }
        aggregate_by_having(select);
        let keys = self.keys.pop().unwrap_or_default();
        for (k, scale) in keys.items {
            if let Some(SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }) =
                select.projection.get_mut(k)
            {
                round_to_scale(e, scale);
            }
        }
        if let GroupByExpr::Expressions(groups, _) = &mut select.group_by {
            for (k, scale) in keys.groups {
                if let Some(g) = groups.get_mut(k) {
                    round_to_scale(g, scale);
                }
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        if !resolve_group_concat_order(expr) {
            // (MySQL's error 1054: no such argument.)
            self.refused = Some(format!("`{expr}` is not supported"));
            return ControlFlow::Break(());
        }
        let known = match expr {
            Expr::Subquery(q) => Some(typing::subquery(q, self.ctes.last().unwrap_or(&Vec::new()))),
            _ => None,
        };
        if is_charset_function(expr) || matches!(expr, Expr::Collate { .. }) {
            let arg = typing::children(expr).first().copied();
            self.charset_args.push(arg.and_then(written_derivation));
        }
        // Typed whole where it is entered and no expression around it typed it (the outermost
        // one, or one its parent does not type: a subquery's clauses, `SUBSTRING`'s operands).
        let key = typing::Found::key(expr);
        let fixed = match self.found.take(key) {
            Some(found) => Some(found),
            None => {
                let none = Scope::none();
                let scope = self.scopes.last().unwrap_or(&none);
                scope.typed_into(expr, &mut self.found);
                self.found.take(key)
            }
        };
        self.marks.push((self.types.len(), known, fixed));
        ControlFlow::Continue(())
    }

    fn post_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        let (mark, known, fixed) = self.marks.pop().unwrap_or((self.types.len(), None, None));
        let mut kids = self.types.split_off(mark.min(self.types.len()));
        let mut fixeds = self.fixed.split_off(mark.min(self.fixed.len()));
        let wides = self.wide.split_off(mark.min(self.wide.len()));
        let wide = wides.contains(&true) || unbounded_source(expr);
        // A `GROUP_CONCAT`'s `ORDER BY` expressions follow its arguments among the types met:
        // the rules below read its arguments' (as where it has no `ORDER BY`: `GROUP_CONCAT(x
        // ORDER BY x)` of a BIGINT UNSIGNED writes its value).
        if matches!(expr, Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("GROUP_CONCAT"))
        {
            let args = typing::children(expr).len();
            kids.truncate(args);
            fixeds.truncate(args);
        }
        if self.marks.is_empty() {
            // (The addresses typed are the tree's no longer.)
            self.found.clear();
        }
        // A DATETIME or TIME of a fraction read as a number exactly is the DECIMAL it is read
        // as (`typing::fractions_read`).
        let metas: Vec<Meta> = fixeds
            .iter()
            .zip(&kids)
            .map(|(f, t)| f.map_or_else(|| Meta::of_type(*t), |(_, m)| m))
            .collect();
        // `x IS NULL` of an `x` that cannot be NULL is 0, `x` not evaluated (MariaDB's
        // `Item_func_isnull` is then a constant): `(COT(0) IS NOT NULL) IS NULL` is 0, no error.
        let never_null = is_null_test(expr) && metas.len() == 1 && !metas[0].nullable;
        if let Some(why) = lock_name_refused(expr, &kids, &metas) {
            self.error = Some((4079, why));
            return ControlFlow::Break(());
        }

        let numbers = typing::fractions_read(expr, &kids, &metas);
        let ty = known.unwrap_or_else(|| {
            let none = Scope::none();
            self.scopes
                .last()
                .unwrap_or(&none)
                .node_declared(expr, &numbers, &metas)
        });
        let ty = fixed.map_or(ty, |(_, m)| typing::int_val_type(expr, ty, &m));
        // (Of the node as MySQL reads it, before it is rewritten.)
        let collations = self.collations.split_off(mark.min(self.collations.len()));
        let derived = self.derivation(expr, ty, &collations);
        if let Some(refused) = self.collation_mix(expr, ty, &kids, &collations) {
            self.error = Some(refused);
            return ControlFlow::Break(());
        }
        // (Typed by its name before it is renamed.)
        if let Err(refused) = percentile_call(expr, &kids) {
            self.error = Some(refused);
            return ControlFlow::Break(());
        }
        // (Checked once the node is translated whole.)
        let ranged = ranged_double(expr, ty, &wides).then(|| expr.to_string());
        if kids.len() == typing::children(expr).len() {
            let whole = whole_temporals(expr, &kids, &metas);
            let read = unsigned(expr, &whole);
            double_digits(expr, &read);
            doubles_read_as_integers(expr, &read);
            numbered(expr, &read);
            // (After `numbered`: a whole temporal is the BIGINT it is read as, which overflows
            // as one: `-2147483648 * TIMESTAMP '2024-03-05 12:34:56'` is error 1690.)
            let integers: Vec<Ty> = read
                .iter()
                .zip(kids.iter().zip(&numbers))
                .map(|(r, (k, n))| match typing::reads_numbers(expr) {
                    Some(typing::Reading::Numbers) if k == n => {
                        typing::as_number(typing::Reading::Numbers, *r).unwrap_or(*r)
                    }
                    _ => *r,
                })
                .collect();
            signed_overflow(expr, &integers, &fixeds);
            numbered_bits(expr, &read);
            moved_time(expr, &read);
            dated_time(expr, &read);
            time_truths(expr, &read);
            let exact: Vec<Ty> = read
                .iter()
                .zip(kids.iter().zip(&numbers))
                .map(|(r, (k, n))| if k == n { *r } else { *n })
                .collect();
            let sums_stored = self.keys.last().is_some_and(|k| k.sums_stored);
            decimals(expr, &kids, &exact, ty, &fixeds, sums_stored);
            let kids = read;
            let greatest = greatest_fraction(expr, &kids, ty, &metas, fixed.map(|(_, m)| m));
            coerce(expr, &kids);
            negated_double(expr, &kids);
            if let Some(fraction) = greatest {
                greatest_temporal(expr, ty, fraction);
            }
            auto_fraction(expr, ty);
            if ty == Ty::DateTime {
                merged(expr, &kids, |e, t| match t {
                    Ty::Date => Some(format!("mysql_cast_datetime({e})")),
                    Ty::Time => Some(format!("mysql_time_datetime({e})")),
                    _ => None,
                });
            }
        }
        strings_read(expr, ty, &kids, &fixeds);
        if let Expr::Collate { collation, .. } = &*expr {
            let written = self.charset_args.pop().flatten();
            if let ([kid], [collated]) = (kids.as_slice(), collations.as_slice()) {
                let mb3 = self.literals_mb3
                    && (*kid != Ty::Text
                        || collated.is_some_and(|c| c.derivation == Derivation::Coercible));
                if let Some(refused) = collated_charset(collation, *kid, written, mb3) {
                    self.error = Some(refused);
                    return ControlFlow::Break(());
                }
            }
        }
        if is_charset_function(expr) {
            let written = self.charset_args.pop().flatten();
            if let ([kid], [collated]) = (kids.as_slice(), collations.as_slice()) {
                // (A literal's, or what is made of literals only, is of the connection's
                // character set.)
                let mb3 = self.literals_mb3
                    && collated.is_some_and(|c| {
                        c.derivation == Derivation::Coercible && c.name == self.literals
                    });
                charset_function(expr, *kid, *collated, written, mb3);
            }
        }
        let collate = matches!(expr, Expr::Collate { .. });
        self.types.push(ty);
        self.typed
            .insert(std::ptr::from_ref::<Expr>(expr) as usize, ty);
        self.fixed.push(fixed);
        self.wide.push(wide);
        if let Some(ordered) = self.ordered.last_mut() {
            let key = typing::Found::key(expr);
            if ordered.terms.contains(&key) {
                sort_key(expr, ty);
            }
            if let Some(item) = ordered.items.iter_mut().find(|i| i.0 == key) {
                item.1 = Some(ty);
            }
        }
        let moved_digits = moved_string_digits(expr, ty, fixed.map(|(_, m)| m));
        // (A string operand has a collation, any other none.)
        self.operands = coercibility::aggregate(collations.iter().copied())
            .and_then(|a| Collation::from_sqlite(a.name));
        if self.expr(expr).is_break() {
            if self.refused.is_none() {
                self.refused = Some(format!("`{}` is not supported", self.written(expr)));
            }
            return ControlFlow::Break(());
        }
        if self.first_rows.last() == Some(&true) {
            first_row_min_max(expr, collations.first().copied().flatten());
        }
        if let Some(digits) = moved_digits {
            *expr = raw(format!("mysql_fraction_digits({expr}, {digits})"));
        }
        if let Some(said) = ranged {
            let said = said.replace('\'', "''");
            *expr = raw(format!("mysql_double_checked({expr}, '{said}')"));
        }
        let derived = match expr {
            // Known only once the name is SQLite's (a string literal is one made here).
            Expr::Collate { collation, .. } if collate => Some(Collated::new(
                Derivation::Explicit,
                sqlite_collation(&collation.to_string()).unwrap_or("BINARY"),
            )),
            _ => derived,
        };
        if never_null {
            *expr = raw("0".into());
        }
        like_by_collation(expr, self.operands);
        function_by_collation(expr, self.operands);
        if kids.len() == typing::children(expr).len() {
            compare_by_collation(expr, &kids, &collations);
        }
        collate_result(expr, derived);
        self.collations.push(derived);
        ControlFlow::Continue(())
    }
}

impl Rewrite<'_> {
    /// The collation of `expr`, of type `ty`, by MySQL's coercibility rules, given its
    /// children's (`kids`): a column's (and a variable's) is implicit, a literal's the
    /// connection's and coercible, anything else computed the one its string operands agree on.
    fn derivation(&self, expr: &Expr, ty: Ty, kids: &[Option<Collated>]) -> Option<Collated> {
        if ty != Ty::Text {
            return None;
        }
        let connection = |derivation| Collated::new(derivation, self.literals);
        let results = match expr {
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) | Expr::Subquery(_) => {
                return Some(Collated::new(Derivation::Implicit, super::collation::NAME));
            }
            Expr::Value(_) => return Some(connection(Derivation::Coercible)),
            // A string cast to one is of the connection's collation, implicitly (MariaDB's
            // `Item_char_typecast`, `CONVERT(x USING c)`).
            Expr::Cast { .. } | Expr::Convert { .. } => {
                return Some(connection(Derivation::Implicit));
            }
            // A date moved by an interval, as a string: of the connection's, coercible.
            Expr::BinaryOp { left, right, .. }
                if matches!(**left, Expr::Interval(_)) || matches!(**right, Expr::Interval(_)) =>
            {
                return Some(connection(Derivation::Coercible));
            }
            Expr::Function(f) => {
                let name = f.name.to_string().to_ascii_uppercase();
                match result_strings(&name, kids.len()) {
                    Made::Bin => {
                        return Some(Collated::new(Derivation::Coercible, super::collation::BIN));
                    }
                    Made::Connection => return Some(connection(Derivation::Coercible)),
                    Made::Of(at) => at,
                }
            }
            Expr::Substring { .. } => vec![0],
            // Its results', not its operand's or conditions' (compared, not given back).
            Expr::Case {
                operand,
                conditions,
                ..
            } => {
                let first = usize::from(operand.is_some());
                let mut at: Vec<usize> = (0..conditions.len()).map(|k| first + 2 * k + 1).collect();
                at.push(first + 2 * conditions.len());
                at
            }
            _ => (0..kids.len()).collect(),
        };
        Some(
            coercibility::aggregate(results.into_iter().filter_map(|k| kids.get(k).copied()))
                .unwrap_or(connection(Derivation::Coercible)),
        )
    }

    /// MySQL's refusal of `expr` (of type `ty`, of operands of types `kids` and collations
    /// `collations`) where operands whose collations it aggregates are of two explicit ones
    /// ([`coercibility::explicit_mix`]).
    fn collation_mix(
        &self,
        expr: &Expr,
        ty: Ty,
        kids: &[Ty],
        collations: &[Option<Collated>],
    ) -> Option<(u16, String)> {
        if kids.len() != collations.len() || kids.len() != typing::children(expr).len() {
            return None;
        }
        aggregated_operands(expr, ty, kids)
            .into_iter()
            .find_map(|(operation, at)| {
                let operands: Vec<(Collated, &str)> = at
                    .iter()
                    .filter_map(|k| collations.get(*k).copied().flatten())
                    .map(|c| {
                        let collation = Collation::from_sqlite(c.name).unwrap_or(Collation::Binary);
                        let mb3 = self.literals_mb3 && c.derivation == Derivation::Coercible;
                        (
                            c,
                            if mb3 {
                                collation.mysql_mb3()
                            } else {
                                collation.mysql()
                            },
                        )
                    })
                    .collect();
                coercibility::explicit_mix(&operation, &operands)
            })
    }

    /// Refuses the statement for `what`.
    fn refuse(&mut self, what: &str) -> ControlFlow<()> {
        self.refused = Some(format!("{what}: not supported"));
        ControlFlow::Break(())
    }

    /// `expr` as the client wrote it, shortened to a few words. Its span in the text, unless
    /// that leaves out its first word (a `CAST`'s span is its operand's): then as sqlparser
    /// prints it.
    fn written(&self, expr: &Expr) -> String {
        const SHOWN: usize = 60;
        let span = expr.span();
        let printed = expr.to_string();
        let text = match (
            self.lines.offset(self.sql, span.start),
            self.lines.offset(self.sql, span.end),
        ) {
            (Some(from), Some(to))
                if from < to
                    && self.sql[from..]
                        .chars()
                        .next()
                        .map(|c| c.to_ascii_lowercase())
                        == printed.chars().next().map(|c| c.to_ascii_lowercase()) =>
            {
                self.sql[from..to].to_string()
            }
            _ => printed,
        };
        match text.char_indices().nth(SHOWN) {
            Some((cut, _)) => format!("{}…", &text[..cut]),
            None => text,
        }
    }

    /// `expr` rewritten where SQLite's rules differ from MySQL's; a break where it has no rule.
    fn expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        let made = match expr {
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => self.variable(expr)?,
            Expr::Value(v) => self.value(v)?,
            // `@name := value` (its left side read as `uservar('name')` already).
            Expr::BinaryOp {
                left,
                op: BinaryOperator::Assignment,
                right,
            } => {
                let target = left.to_string();
                let prefix = format!("{}(", super::functions::USER_VARIABLE);
                let Some(name) = target.strip_prefix(&prefix).and_then(|t| t.strip_suffix(')'))
                else {
                    return ControlFlow::Break(());
                };
                Some(raw(format!(
                    "{}({name}, {right})",
                    super::functions::SET_USER_VARIABLE
                )))
            }
            Expr::BinaryOp { left, op, right } => {
                if self.literals != super::collation::NAME {
                    column_collation_wins(left, right, self.literals);
                }
                binary(left, op, right)?
            }
            // `x COLLATE name`: the collations pinbad evaluates, by their SQLite names.
            Expr::Collate { collation, .. } if collation.0.len() == 1 => {
                let name = collation.to_string();
                let name = name.trim_matches(|c| c == '`' || c == '\'' || c == '"');
                match super::variables::collation(name) {
                    Some(c) => *collation = ObjectName::from(vec![Ident::new(c.sqlite())]),
                    None if Collation::from_sqlite(name).is_some() => {}
                    None => {
                        let (code, why) = super::variables::unknown_collation(name);
                        self.error = Some((code as u16, why));
                        return ControlFlow::Break(());
                    }
                }
                None
            }
            Expr::UnaryOp { op, expr: operand } => {
                match op {
                    UnaryOperator::Plus
                    | UnaryOperator::Minus
                    | UnaryOperator::Not
                    | UnaryOperator::BitwiseNot => {}
                    _ => return ControlFlow::Break(()),
                }
                paren(operand);
                None
            }
            Expr::Function(f) => {
                // MariaDB's grammar takes `LEAD`/`LAG` of one or two arguments: a third (the
                // default MySQL 8 takes) is a syntax error, near the text after its comma.
                if let FunctionArguments::List(list) = &f.args {
                    let name = f.name.to_string();
                    if (name.eq_ignore_ascii_case("LEAD") || name.eq_ignore_ascii_case("LAG"))
                        && list.args.len() > 2
                    {
                        let third = list.args[2].span().start;
                        let near = self
                            .lines
                            .offset(self.sql, third)
                            .and_then(|at| self.sql.get(..at)?.rfind(','))
                            .and_then(|comma| self.sql.get(comma + 1..))
                            .map_or_else(|| list.args[2].to_string(), |t| t.trim_end().into());
                        self.error = Some((1064, syntax_error_near(&near)));
                        return ControlFlow::Break(());
                    }
                }
                // `GROUP_CONCAT(… LIMIT n)` takes an unsigned integer as written, as a query's
                // `LIMIT` does: anything else is a syntax error.
                if let FunctionArguments::List(list) = &f.args {
                    for clause in &list.clauses {
                        if let FunctionArgumentClause::Limit(n) = clause {
                            if !is_row_count(n, self.sql, self.lines) {
                                let near = expr_text(n, self.sql, self.lines)
                                    .unwrap_or_else(|| n.to_string());
                                self.error = Some((1064, syntax_error_near(&near)));
                                return ControlFlow::Break(());
                            }
                        }
                    }
                }
                self.function(expr)?
            }
            Expr::TypedString(ts) => Some(self.temporal_literal(ts)?),
            Expr::AnyOp { left, right, .. } | Expr::AllOp { left, right, .. }
                if left.to_string().len() + right.to_string().len() > MAX_QUANTIFIED_BYTES =>
            {
                self.refused = Some("ANY/ALL comparisons nest too deep".into());
                return ControlFlow::Break(());
            }
            Expr::AnyOp {
                left,
                compare_op,
                right,
                ..
            } => quantified(left, compare_op, right, false)?,
            Expr::AllOp {
                left,
                compare_op,
                right,
            } => quantified(left, compare_op, right, true)?,
            Expr::Cast {
                kind: CastKind::Cast,
                expr: value,
                data_type,
                format: None,
                ..
            } => Some(raw(cast(value, &data_type.to_string())?)),
            Expr::Convert {
                is_try: false,
                expr: value,
                data_type,
                charset,
                styles,
                ..
            } if styles.is_empty() => Some(match (data_type, charset) {
                (Some(t), _) => raw(cast(value, &t.to_string())?),
                (None, Some(cs)) if cs.to_string().eq_ignore_ascii_case("binary") => {
                    Expr::Nested(value.clone())
                }
                // Into a character set: a binary string's bytes become text (`mysql_to_text`).
                (None, Some(_)) => raw(format!("mysql_to_text({value})")),
                (None, None) => return ControlFlow::Break(()),
            }),
            Expr::Trim {
                trim_where,
                trim_what,
                expr: value,
                trim_characters: None,
            } => match (trim_where, trim_what) {
                (None, None) => None,
                (place, what) => Some(raw(format!(
                    "mysql_trim({}, {}, {value})",
                    quote(&place.as_ref().map_or("BOTH".into(), |p| p.to_string())),
                    what.as_ref().map_or("' '".into(), |w| w.to_string())
                ))),
            },
            Expr::Substring {
                expr: value,
                substring_from,
                substring_for,
                ..
            } => {
                let mut args = vec![value.to_string()];
                args.extend(substring_from.iter().map(|e| e.to_string()));
                args.extend(substring_for.iter().map(|e| e.to_string()));
                Some(raw(format!("mysql_substr({})", args.join(", "))))
            }
            Expr::Position { expr: what, r#in } => Some(call(
                "locate",
                vec![what.as_ref().clone(), r#in.as_ref().clone()],
            )),
            Expr::Extract {
                field, expr: value, ..
            } => Some(raw(format!(
                "mysql_extract({}, {value})",
                quote(&field.to_string().to_ascii_uppercase())
            ))),
            Expr::RLike { regexp, .. } => {
                *regexp = true;
                None
            }
            Expr::Like {
                any: false,
                expr: value,
                pattern,
                ..
            } => {
                paren(value);
                paren(pattern);
                None
            }
            Expr::Between {
                expr: value,
                low,
                high,
                ..
            } => {
                paren(value);
                paren(low);
                paren(high);
                None
            }
            Expr::In {
                expr: value,
                target: InTarget::List(_) | InTarget::Subquery(_),
                global: false,
                ..
            } => {
                paren(value);
                None
            }
            Expr::IsNull(value)
            | Expr::IsNotNull(value)
            | Expr::IsTrue(value)
            | Expr::IsNotTrue(value)
            | Expr::IsFalse(value)
            | Expr::IsNotFalse(value) => {
                paren(value);
                None
            }
            // MySQL's `x IS UNKNOWN` is `x IS NULL` (SQLite reads `UNKNOWN` as a column).
            Expr::IsUnknown(value) => {
                paren(value);
                Some(Expr::IsNull(value.clone()))
            }
            Expr::IsNotUnknown(value) => {
                paren(value);
                Some(Expr::IsNotNull(value.clone()))
            }
            // A charset introducer (`_utf8mb4'x'`): the string itself, in the connection's
            // collation (pinbad's strings are all UTF-8); `_binary'x'` a binary string.
            Expr::Prefixed { prefix, value } if prefix.value.starts_with('_') => {
                if prefix.value.eq_ignore_ascii_case("_binary") {
                    Some(raw(format!("CAST({value} AS BLOB)")))
                } else {
                    Some((**value).clone())
                }
            }
            Expr::Nested(_)
            | Expr::Case { .. }
            | Expr::Exists { .. }
            | Expr::Subquery(_)
            | Expr::Tuple(_)
            | Expr::Ceil { .. }
            | Expr::Floor { .. }
            // Taken by the `±` or the call around it.
            | Expr::Interval(_) => None,
            _ => return ControlFlow::Break(()),
        };
        if let Some(made) = made {
            *expr = made;
        }
        ControlFlow::Continue(())
    }

    /// `@@name` (`session.`/`global.` dropped) as `sysvar('name')`; `@name` as `uservar('name')`.
    /// A system variable pinbad does not know, or named in a scope it does not have, is
    /// MariaDB's error (1193, 1238), not a NULL.
    fn variable(&mut self, expr: &Expr) -> ControlFlow<(), Option<Expr>> {
        let Some(name) = typing::variable_name(expr) else {
            return ControlFlow::Continue(None);
        };
        let Some(name) = name.strip_prefix("@@") else {
            return ControlFlow::Continue(name.strip_prefix('@').map(|user| {
                raw(format!(
                    "{}({})",
                    super::functions::USER_VARIABLE,
                    quote(&user.to_lowercase())
                ))
            }));
        };
        match super::variables::read_system(name) {
            Ok(v) => ControlFlow::Continue(Some(raw(format!("sysvar({})", quote(v.name))))),
            Err((code, why)) => {
                self.error = Some((code as u16, why));
                ControlFlow::Break(())
            }
        }
    }

    /// A literal as SQLite reads MySQL's: strings collate as MySQL's default collation does,
    /// `b'101'` is the number 5, `0x41` stays a hexadecimal number.
    fn value(&self, v: &mut ValueWithSpan) -> ControlFlow<(), Option<Expr>> {
        ControlFlow::Continue(match &v.value {
            // (`N'…'`: a national string is a string.)
            Value::SingleQuotedString(s)
            | Value::DoubleQuotedString(s)
            | Value::NationalStringLiteral(s) => Some(Expr::Collate {
                expr: Box::new(Expr::Value(Value::SingleQuotedString(s.clone()).into())),
                collation: ObjectName::from(vec![Ident::new(self.literals)]),
            }),
            Value::SingleQuotedByteStringLiteral(bits) => {
                if bits.len() > 64 || !bits.bytes().all(|b| b == b'0' || b == b'1') {
                    return ControlFlow::Break(());
                }
                // `b''` is the empty string, 0 as a number.
                match u64::from_str_radix(bits, 2).or(if bits.is_empty() { Ok(0) } else { Err(()) })
                {
                    Ok(n) => Some(raw(n.to_string())),
                    Err(_) => return ControlFlow::Break(()),
                }
            }
            // (`x'41'` stays the blob it is; the typing knows which were written so.)
            Value::HexStringLiteral(digits) => {
                (!typing::hex_string_at(v.span.start)).then(|| raw(format!("0x{digits}")))
            }
            // `TRUE` is the number 1, also where SQLite reads it as a truth (`x IS TRUE`, which
            // `x <=> TRUE` becomes).
            Value::Boolean(b) => Some(raw(u8::from(*b).to_string())),
            // A DECIMAL literal with more digits than a double keeps: the text of its digits,
            // as the exact arithmetic holds such a value (`super::decimal::Decimal::held`).
            Value::Number(n, _) if n.contains('.') && !n.contains(['e', 'E']) => {
                match super::decimal::Decimal::parse(n).map(|d| d.held()) {
                    Some(super::decimal::Held::Text(t)) => Some(raw(quote(&t))),
                    _ => None,
                }
            }
            // 2^63 to 2^64-1, a BIGINT UNSIGNED: its 64 bits, as SQLite holds one
            // (`typing::Ty::UInt`).
            Value::Number(n, _) if n.parse::<i64>().is_err() => n
                .parse::<u64>()
                .ok()
                .map(|u| raw(format!("({})", u as i64))),
            Value::Number(..) | Value::Null | Value::Placeholder(_) => None,
            _ => return ControlFlow::Break(()),
        })
    }

    /// `DATE '…'`, `TIMESTAMP '…'` (`DATETIME '…'`), `TIME '…'`: the value in its type's form,
    /// as the cast SQLite carries that type by (its text, typed by `typing`); text that is no
    /// such value is MySQL's error 1525, as the literal is read before the query runs.
    fn temporal_literal(&mut self, ts: &TypedString) -> ControlFlow<(), Expr> {
        use super::dates::Kind;
        let (kind, name, call) = match ts.data_type {
            DataType::Date => (Kind::Date, "DATE", "date"),
            DataType::Datetime(_) | DataType::Timestamp(..) => {
                (Kind::DateTime, "DATETIME", "mysql_cast_datetime")
            }
            DataType::Time(..) => (Kind::Time, "TIME", "time"),
            _ => return ControlFlow::Break(()),
        };
        let (Value::SingleQuotedString(text) | Value::DoubleQuotedString(text)) = &ts.value.value
        else {
            return ControlFlow::Break(());
        };
        match super::dates::literal(kind, text) {
            Some(value) => ControlFlow::Continue(raw(format!("{call}({})", quote(&value)))),
            None => {
                self.error = Some((1525, format!("Incorrect {name} value: '{text}'")));
                ControlFlow::Break(())
            }
        }
    }

    /// A call, renamed or rebuilt where MySQL's differs from ours.
    fn function(&self, expr: &mut Expr) -> ControlFlow<(), Option<Expr>> {
        let Expr::Function(f) = expr else {
            return ControlFlow::Continue(None);
        };
        // ODBC's escape `{fn f(…)}` (Excel, MS Query, ODBC clients) is MySQL's `f(…)`.
        f.uses_odbc_syntax = false;
        if !matches!(f.parameters, FunctionArguments::None)
            || f.filter.is_some()
            || f.null_treatment.is_some()
            || !f.within_group.is_empty()
            || f.name.0.len() != 1
        {
            return ControlFlow::Break(());
        }
        let Some(ObjectNamePart::Identifier(name)) = f.name.0.first().cloned() else {
            return ControlFlow::Break(());
        };
        let up = name.value.to_ascii_uppercase();
        let renamed = RENAMED
            .iter()
            .find(|(m, _)| *m == up)
            .map(|(_, ours)| *ours);
        let list = match &mut f.args {
            // `CURRENT_TIMESTAMP` and its kin without parentheses.
            FunctionArguments::None => {
                return ControlFlow::Continue(renamed.map(|ours| raw(format!("{ours}()"))));
            }
            FunctionArguments::Subquery(_) => return ControlFlow::Break(()),
            FunctionArguments::List(list) => list,
        };
        // An `INTERVAL n UNIT` argument (`DATE_ADD(d, INTERVAL 1 DAY)`): `n, 'UNIT'`.
        let mut args = Vec::with_capacity(list.args.len());
        for arg in list.args.drain(..) {
            match arg {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Interval(i))) => {
                    let (amount, unit) = interval(&i)?;
                    args.push(FunctionArg::Unnamed(FunctionArgExpr::Expr(amount)));
                    args.push(FunctionArg::Unnamed(FunctionArgExpr::Expr(raw(quote(
                        &unit,
                    )))));
                }
                FunctionArg::Unnamed(_) => args.push(arg),
                _ => return ControlFlow::Break(()),
            }
        }
        list.args = args;
        let distinct = matches!(list.duplicate_treatment, Some(DuplicateTreatment::Distinct));
        let texts: Vec<String> = list.args.iter().map(|a| a.to_string()).collect();
        if up == "GROUP_CONCAT" {
            let mut separator = quote(",");
            let mut order = String::new();
            let mut limit = None;
            for clause in &list.clauses {
                match clause {
                    FunctionArgumentClause::OrderBy(by) => {
                        // (`ORDER BY 2` was made the call's second argument where it was
                        // entered: a number here is a constant's value.)
                        let mut terms: Vec<String> = by.iter().map(|o| o.to_string()).collect();
                        // Rows its order finds equal, MySQL's tree of them gives last met
                        // first; with DISTINCT, the first met of equal ones stands for them.
                        if !distinct {
                            terms.push(format!("{}() DESC", super::functions::ARRIVAL));
                        }
                        order = format!(" ORDER BY {}", terms.join(", "));
                    }
                    FunctionArgumentClause::Separator(v) => match &v.value {
                        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => {
                            separator = quote(s)
                        }
                        _ => return ControlFlow::Break(()),
                    },
                    // (A count as written: `expr` checked it.)
                    FunctionArgumentClause::Limit(n) => limit = Some(n.to_string()),
                    _ => return ControlFlow::Break(()),
                }
            }
            if texts.is_empty() || f.over.is_some() {
                return ControlFlow::Break(());
            }
            // `DISTINCT` without `ORDER BY`: MariaDB writes the values its tree of distinct
            // ones holds, walked in its order (`Unique::walk`), so sorted by the arguments.
            if distinct && order.is_empty() {
                order = format!(" ORDER BY {}", texts.join(", "));
            }
            let (name, limit) = match limit {
                Some(n) => ("mysql_group_concat_limit", format!("{n}, ")),
                None => ("mysql_group_concat", String::new()),
            };
            // (Its first argument: 0, or which collation tells its distinct values apart.)
            let by = self.operands.unwrap_or(Collation::General);
            return ControlFlow::Continue(Some(raw(format!(
                "{name}({}, {separator}, {limit}{}{order})",
                if distinct { by.number() } else { 0 },
                texts.join(", ")
            ))));
        }
        if !list.clauses.is_empty() {
            return ControlFlow::Break(());
        }
        if let Some(e) = json_extract(&up, &texts) {
            return ControlFlow::Continue(Some(e));
        }
        // The unit `TIMESTAMPDIFF` and `TIMESTAMPADD` take first.
        if up == "TIMESTAMPDIFF" || up == "TIMESTAMPADD" {
            if let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(e))) = list.args.first_mut() {
                if let Expr::Identifier(unit) = e {
                    let unit = unit.value.to_ascii_uppercase();
                    if UNITS.contains(&unit.as_str()) {
                        *e = raw(quote(&unit));
                    }
                }
            }
        }
        // `IFNULL(n, 'x')`, `COALESCE(n, 'x')`: a string argument makes the result a string.
        if (up == "IFNULL" || up == "COALESCE")
            && list.args.iter().any(|a| {
                matches!(a, FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Collate { expr, .. }))
                    if matches!(expr.as_ref(), Expr::Value(v) if matches!(v.value, Value::SingleQuotedString(_))))
            })
        {
            let texts: Vec<String> = list.args.iter().map(|a| a.to_string()).collect();
            return ControlFlow::Continue(Some(raw(format!(
                "CAST({}({}) AS TEXT)",
                name.value,
                texts.join(", ")
            ))));
        }
        // `NTILE(n)`: `n` read as MySQL's `val_int` reads it (`NTILE(0.5)` is `NTILE(1)`),
        // MariaDB's error 4024 where it is not positive (`mysql_ntile`), not SQLite's.
        if up == "NTILE" && f.over.is_some() && list.args.len() == 1 {
            let n = list.args[0].to_string();
            list.args[0] =
                FunctionArg::Unnamed(FunctionArgExpr::Expr(raw(format!("mysql_ntile({n})"))));
        }
        // `COALESCE(x)`: MySQL takes one argument, SQLite's `coalesce` two or more.
        if up == "COALESCE" && list.args.len() == 1 {
            list.args
                .push(FunctionArg::Unnamed(FunctionArgExpr::Expr(raw(
                    "NULL".into()
                ))));
        }
        // `COUNT(DISTINCT a, b)`: SQLite counts distinct values of one argument.
        if up == "COUNT" && distinct && list.args.len() > 1 {
            let texts: Vec<String> = list.args.iter().map(|a| a.to_string()).collect();
            list.args = vec![FunctionArg::Unnamed(FunctionArgExpr::Expr(raw(format!(
                "mysql_tuple({})",
                texts.join(", ")
            ))))];
        }
        if let Some(ours) = renamed {
            // The same name keeps the client's spelling.
            if !ours.eq_ignore_ascii_case(&name.value) {
                f.name = ObjectName::from(vec![Ident::new(ours)]);
            }
        }
        ControlFlow::Continue(None)
    }
}

/// `JSON_EXTRACT(doc, path)`: the JSON text of what the path finds, as MySQL writes it
/// (SQLite's `json_extract` answers an SQL value: `x` for the string `"x"`, where its `->`
/// answers `"x"`, minified: `mysql_json_text` spaces it as MySQL does), NULL for a document that is not JSON (as MySQL's, with a warning, where
/// SQLite's errs). Of several paths, SQLite's.
fn json_extract(name: &str, args: &[String]) -> Option<Expr> {
    match (name, args) {
        ("JSON_EXTRACT", [doc, path]) => Some(raw(format!(
            "iif(json_valid({doc}), mysql_json_text(({doc}) -> ({path})), NULL)"
        ))),
        _ => None,
    }
}

/// The name of an arithmetic operator as the exact functions (`mysql_integer_arith`,
/// `mysql_decimal_op`) take it.
fn arithmetic_code(op: &BinaryOperator) -> &'static str {
    match op {
        BinaryOperator::Plus => "+",
        BinaryOperator::Minus => "-",
        BinaryOperator::Multiply => "*",
        BinaryOperator::Divide => "/",
        BinaryOperator::Modulo => "%",
        _ => "DIV",
    }
}

/// A DOUBLE cast to DECIMAL, given as its shortest digits (`mysql_double_digits`): MySQL
/// rounds the decimal it makes of the double (`0.5e0 - 1.005`, -0.5049999999999999, to two
/// decimals is -0.50), where the digits of a DECIMAL held as a double are its first 15.
/// The arguments MariaDB reads as integers (`val_int`: a count, a position, a set's bits, a
/// base), by function, where pinbad's functions read a number as a DECIMAL is read, rounded
/// half away from zero.
const INTEGER_ARGUMENTS: [(&str, &[usize]); 7] = [
    ("LEFT", &[1]),
    ("RIGHT", &[1]),
    ("SUBSTRING", &[1, 2]),
    ("SUBSTR", &[1, 2]),
    ("MID", &[1, 2]),
    ("MAKE_SET", &[0]),
    ("EXPORT_SET", &[0, 4]),
];

/// A DOUBLE read as an integer ([`INTEGER_ARGUMENTS`], `CONV`'s bases, `SUBSTRING(s FROM a
/// FOR b)`'s) rounds half to even, as MySQL's `rint`: `LEFT('abcdef', 2.5e0)` is `ab`,
/// `MAKE_SET(0.5e0, 'a')` empty.
fn doubles_read_as_integers(expr: &mut Expr, kids: &[Ty]) {
    let places: &[usize] = match &*expr {
        Expr::Substring { .. } => &[1, 2],
        Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_uppercase();
            match INTEGER_ARGUMENTS.iter().find(|(n, _)| *n == name) {
                Some((_, places)) => places,
                None if name == "CONV" => &[1, 2],
                None => return,
            }
        }
        _ => return,
    };
    for (k, e) in typing::children_mut(expr).into_iter().enumerate() {
        if places.contains(&k) && kids.get(k) == Some(&Ty::Double) {
            *e = raw(format!("mysql_round_double({e}, 0)"));
        }
    }
}

fn double_digits(expr: &mut Expr, kids: &[Ty]) {
    let (Expr::Cast {
        expr: value,
        data_type,
        ..
    }
    | Expr::Convert {
        expr: value,
        data_type: Some(data_type),
        ..
    }) = expr
    else {
        return;
    };
    if kids.first() == Some(&Ty::Double)
        && matches!(
            data_type,
            DataType::Decimal(_) | DataType::Numeric(_) | DataType::Dec(_)
        )
    {
        let inner = std::mem::replace(value.as_mut(), Expr::Value(Value::Null.into()));
        **value = raw(format!("mysql_double_digits({inner})"));
    }
}

/// SQLite's name of a collation named so in a `COLLATE` clause already translated.
fn sqlite_collation(name: &str) -> Option<&'static str> {
    Collation::from_sqlite(name).map(Collation::sqlite)
}

/// The collation SQLite gives `e` itself: a `COLLATE` clause's, a column's (every text column
/// is declared with MySQL's), or none.
fn own_collation(e: &Expr) -> Own {
    match e {
        Expr::Collate { collation, .. } => {
            sqlite_collation(&collation.to_string()).map_or(Own::None, Own::Explicit)
        }
        Expr::Nested(x) => own_collation(x),
        e if is_column(e) => Own::Column(super::collation::NAME),
        _ => Own::None,
    }
}

/// Whether `e` names a column (not text made here by [`raw`], a call, which is an identifier
/// too).
fn is_column(e: &Expr) -> bool {
    match e {
        Expr::CompoundIdentifier(_) => true,
        Expr::Identifier(i) => {
            i.quote_style.is_some()
                || i.value
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        }
        _ => false,
    }
}

/// A computed string (a function's result, a `CASE`) as `… COLLATE name` where its collation
/// (`derived`) is not SQLite's bytes: SQLite gives a collation only to columns and `COLLATE`
/// clauses, so `ORDER BY LTRIM(name)`, `GROUP BY`, `DISTINCT`, `MIN` and the comparisons of it
/// would compare bytes where MySQL compares by `name`'s collation.
fn collate_result(expr: &mut Expr, derived: Option<Collated>) {
    let Some(c) = derived else {
        return;
    };
    let keeps = is_column(expr)
        || matches!(
            expr,
            Expr::Value(_) | Expr::Collate { .. } | Expr::Nested(_) | Expr::Subquery(_)
        );
    if keeps || c.name == "BINARY" {
        return;
    }
    let inner = std::mem::replace(expr, Expr::Value(Value::Null.into()));
    let inner = match inner {
        Expr::Function(_)
        | Expr::Case { .. }
        | Expr::Cast { .. }
        | Expr::Convert { .. }
        | Expr::Trim { .. }
        | Expr::Substring { .. }
        | Expr::Identifier(_) => inner,
        other => Expr::Nested(Box::new(other)),
    };
    *expr = Expr::Collate {
        expr: Box::new(inner),
        collation: ObjectName::from(vec![Ident::new(c.name)]),
    };
}

/// A comparison of strings (`=`, `<`, …, `IN`, `BETWEEN`) by the collation its operands agree
/// on by MySQL's rules ([`coercibility::aggregate`] of `collations`, one per
/// [`typing::children`], of types `kids`), given to its left operand where SQLite would pick
/// another ([`coercibility::sqlite_pick`]; an `IN` list's items never count in SQLite).
fn compare_by_collation(expr: &mut Expr, kids: &[Ty], collations: &[Option<Collated>]) {
    let strings = kids.iter().filter(|t| **t == Ty::Text).count();
    if strings < 2 {
        return;
    }
    let Some(agreed) = coercibility::aggregate(
        kids.iter()
            .zip(collations)
            .filter(|(t, _)| **t == Ty::Text)
            .map(|(_, c)| *c),
    ) else {
        return;
    };
    let (left, picked) = match expr {
        Expr::BinaryOp { left, op, right } if typing::is_comparison(op) => {
            let picked = coercibility::sqlite_pick(own_collation(left), own_collation(right));
            (left, picked)
        }
        Expr::In {
            expr: value,
            target: InTarget::List(_),
            ..
        } => {
            let picked = coercibility::sqlite_pick(own_collation(value), Own::None);
            (value, picked)
        }
        Expr::Between {
            expr: value,
            low,
            high,
            ..
        } => {
            let low = coercibility::sqlite_pick(own_collation(value), own_collation(low));
            let high = coercibility::sqlite_pick(own_collation(value), own_collation(high));
            (value, if low == high { low } else { "" })
        }
        _ => return,
    };
    if picked != agreed.name {
        let inner = std::mem::replace(left.as_mut(), Expr::Value(Value::Null.into()));
        **left = Expr::Collate {
            expr: Box::new(Expr::Nested(Box::new(inner))),
            collation: ObjectName::from(vec![Ident::new(agreed.name)]),
        };
    }
}

/// `x LIKE p` by the collation its operands agree on (`agreed`): SQLite's `LIKE` knows none,
/// so under utf8mb4_bin it is `mysql_like_bin`, under utf8mb4_unicode_ci `mysql_like_uca` (a
/// binary string's bytes are matched by `like` itself).
fn like_by_collation(expr: &mut Expr, agreed: Option<Collation>) {
    let Expr::Like {
        negated,
        any: false,
        expr: value,
        pattern,
        escape_char,
    } = expr
    else {
        return;
    };
    if let Some(c @ (Collation::Bin | Collation::Unicode)) = agreed {
        let escape = escape_char
            .as_ref()
            .map_or(String::new(), |e| format!(", {e}"));
        let call = format!("{}({pattern}, {value}{escape})", c.function("like"));
        *expr = raw(if *negated {
            format!("(NOT {call})")
        } else {
            call
        });
    }
}

/// The functions that compare strings by a collation: each has a variant per collation
/// (`functions`, named by `Collation::function`).
const COLLATED_FUNCTIONS: [&str; 7] = [
    "strcmp",
    "field",
    "find_in_set",
    "locate",
    "instr",
    "greatest",
    "least",
];

/// A function that compares strings ([`COLLATED_FUNCTIONS`]) as its variant of the collation
/// its string operands agree on (`agreed`), where that is not the default: SQLite hands a
/// function values, never their collations (`STRCMP('a' COLLATE utf8mb4_bin, 'A')` is 1).
fn function_by_collation(expr: &mut Expr, agreed: Option<Collation>) {
    let Expr::Function(f) = expr else { return };
    let name = f.name.to_string().to_ascii_lowercase();
    if !COLLATED_FUNCTIONS.contains(&name.as_str()) {
        return;
    }
    if let Some(c) = agreed.filter(|c| *c != Collation::General) {
        f.name = ObjectName::from(vec![Ident::new(c.function(&name))]);
    }
}

/// The results of `IF`, `IFNULL`, `COALESCE` and `CASE`, each converted by `convert` to the
/// merged result's type, given their types (`kids`, one per [`typing::children`]): where it is
/// a DATETIME, each DATE as one. (Where it is a string: [`strings_read`].)
fn merged(expr: &mut Expr, kids: &[Ty], convert: impl Fn(&Expr, Ty) -> Option<String>) {
    let text = |e: &mut Expr, t: Ty| {
        if let Some(made) = convert(e, t) {
            *e = raw(made);
        }
    };
    match expr {
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            let at =
                typing::case_results(operand.is_some(), conditions.len(), else_result.is_some());
            let results = conditions
                .iter_mut()
                .map(|w| &mut w.result)
                .chain(else_result.iter_mut().map(|e| e.as_mut()));
            for (e, k) in results.zip(at) {
                text(e, kids[k]);
            }
        }
        Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_uppercase();
            let from = match name.as_str() {
                "IF" => 1,
                "IFNULL" | "COALESCE" => 0,
                _ => return,
            };
            if let FunctionArguments::List(list) = &mut f.args {
                for (a, t) in list.args.iter_mut().zip(kids).skip(from) {
                    if let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = a {
                        text(e, *t);
                    }
                }
            }
        }
        _ => {}
    }
}

/// Where `expr` (of type `ty`) reads a string from an operand ([`typing::string_operands`]),
/// a number there written as MySQL writes it ([`typing::as_text`]), given the types of the
/// expressions met in `expr` (`kids`, in the visitor's order) and what typing found of each
/// (`found`: a DOUBLE's fixed decimals): SQLite would write its own digits (`1.0`, 15 of a DOUBLE's,
/// a DECIMAL without its scale). Where `expr` merges results into a string (`IF`, `CASE`, …),
/// an integer among them is made one too.
fn strings_read(expr: &mut Expr, ty: Ty, kids: &[Ty], found: &[Option<(Ty, Meta)>]) {
    let places = typing::string_operands(expr, ty);
    if places.is_empty() {
        return;
    }
    let merges = typing::merges_results(expr);
    for (k, e) in typing::children_mut(expr).into_iter().enumerate() {
        let (Some(t), true) = (kids.get(k), places.contains(&k)) else {
            continue;
        };
        let made = match t {
            // (A BIGINT UNSIGNED is its value already, `unsigned`: digits past 2^63.)
            Ty::Int | Ty::UInt if merges => Some(format!("CAST({e} AS TEXT)")),
            t => typing::as_text(
                *t,
                typing::Found::fixed(found.get(k).copied().flatten()),
                &e.to_string(),
            ),
        };
        if let Some(made) = made {
            *e = raw(made);
        }
    }
}

/// `GROUP_CONCAT(… ORDER BY n)`: the nth argument as the client wrote it, made so where the call
/// is entered: before its arguments are written as strings (it orders by their values, as
/// MySQL's does), and before a constant there is folded to a number (`ORDER BY COERCIBILITY(1)`
/// orders by a value, not by a position). False where `n` names no argument.
fn resolve_group_concat_order(e: &mut Expr) -> bool {
    let Expr::Function(f) = e else { return true };
    if !f.name.to_string().eq_ignore_ascii_case("GROUP_CONCAT") {
        return true;
    }
    let FunctionArguments::List(list) = &mut f.args else {
        return true;
    };
    let args: Vec<Expr> = list
        .args
        .iter()
        .filter_map(|a| match a {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(x)) => Some(x.clone()),
            _ => None,
        })
        .collect();
    for clause in &mut list.clauses {
        if let FunctionArgumentClause::OrderBy(by) = clause {
            for o in by {
                let position = match &o.expr {
                    Expr::Value(v) => match &v.value {
                        Value::Number(n, _) => n.parse::<usize>().ok(),
                        _ => None,
                    },
                    _ => None,
                };
                match position.map(|k| args.get(k.checked_sub(1)?)) {
                    Some(Some(arg)) => o.expr = arg.clone(),
                    Some(None) => return false,
                    None => {}
                }
            }
        }
    }
    true
}

/// Whether `e`, a `LIMIT`'s or an `OFFSET`'s count, is one MySQL takes: an unsigned integer as
/// written (`10`, not `0x10`, `1e1` or `'10'`), or a parameter bound into the text (`prepared`).
fn is_row_count(e: &Expr, sql: &str, lines: &Lines) -> bool {
    let Expr::Value(v) = e else {
        return false;
    };
    if matches!(&v.value, Value::Number(n, _) if n.bytes().all(|b| b.is_ascii_digit())) {
        return true;
    }
    lines
        .offset(sql, v.span.start)
        .and_then(|at| sql.get(..at))
        .is_some_and(|before| before.trim_end().ends_with(PARAMETER))
}

/// `e`'s text as written from where it starts to the statement's end (MySQL's "near" in a
/// syntax error).
fn expr_text(e: &Expr, sql: &str, lines: &Lines) -> Option<String> {
    use sqlparser::ast::Spanned;
    let at = lines.offset(sql, e.span().start)?;
    Some(sql.get(at..)?.trim_end().to_string())
}

/// `+ - *` of signed integers whose digits could take the result past 64 bits (`+`/`-` of an
/// operand of 18 digits or more, `*` of operands of 18 together, by what typing `found` of
/// each: a BIGINT column, a literal near 2^63), given their types as read (`read`): exact,
/// error 1690 past 64 bits as MySQL's (`mysql_signed_arith`), where SQLite's would be a double.
/// Narrower ones (`status * 1000`, `timestamp - 60`) cannot pass 64 bits, and stay SQLite's.
fn signed_overflow(expr: &mut Expr, read: &[Ty], found: &[Option<(Ty, Meta)>]) {
    /// Digits a result of this many (the widest signed BIGINT has 19) always fits.
    const SAFE: u32 = 18;
    let Expr::BinaryOp {
        left,
        op: op @ (BinaryOperator::Plus | BinaryOperator::Minus | BinaryOperator::Multiply),
        right,
    } = expr
    else {
        return;
    };
    if !read.iter().all(|t| matches!(t, Ty::Int | Ty::Null)) {
        return;
    }
    let digits: Vec<u32> = found
        .iter()
        .map(|f| f.map_or(u32::MAX / 4, |(_, m)| m.length))
        .collect();
    let (a, b) = (
        digits.first().copied().unwrap_or(0),
        digits.get(1).copied().unwrap_or(0),
    );
    let wide = match op {
        BinaryOperator::Multiply => a + b >= SAFE,
        _ => a.max(b) >= SAFE,
    };
    if wide {
        let code = arithmetic_code(op);
        *expr = raw(format!("mysql_signed_arith('{code}', {left}, {right})"));
    }
}

/// Whether `e` (its children not yet rewritten) makes a number whose magnitude the data does
/// not bound: a literal of 1e150 or more, or nonzero below 1e-150, and `POW`/`EXP`. What the
/// tables hold is bounded far inside a DOUBLE's range (a datagram's floats are 32 bits, its
/// integers 64), so their sums, products and quotients never leave it.
fn unbounded_source(e: &Expr) -> bool {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n
                .parse::<f64>()
                .is_ok_and(|x| x != 0.0 && !(1e-150..1e150).contains(&x.abs())),
            _ => false,
        },
        Expr::Function(f) => matches!(
            f.name.to_string().to_ascii_uppercase().as_str(),
            "POW" | "POWER" | "EXP"
        ),
        _ => false,
    }
}

/// Whether `expr` is `+ - * /` of a DOUBLE result with an operand of unbounded magnitude
/// (`wides`, one per child: [`unbounded_source`]), which the translation checks: error 1690
/// where the result leaves a DOUBLE's range (`mysql_double_checked`), as MySQL's
/// `check_float_overflow`, where SQLite's would be infinite. The others stay SQLite's: their
/// operands cannot take them there.
fn ranged_double(expr: &Expr, ty: Ty, wides: &[bool]) -> bool {
    ty == Ty::Double
        && wides.contains(&true)
        && matches!(
            expr,
            Expr::BinaryOp {
                op: BinaryOperator::Plus
                    | BinaryOperator::Minus
                    | BinaryOperator::Multiply
                    | BinaryOperator::Divide,
                ..
            }
        )
}

/// A value of type `ty` sorted as MySQL sorts it, where SQLite's order of what it holds is
/// another: a BIGINT UNSIGNED (its bits a negative integer past 2^63, sorted first), a
/// DECIMAL (one wider than a double held as text, sorted after every number) and a TIME (its
/// text, `100:00:00` before `12:00:00`) by keys that order their values ([`decimal`]'s and
/// `dates::compared_time_us`, as comparisons of them are). `None` where SQLite's order
/// is MySQL's.
fn sort_key_of(e: &str, ty: Ty) -> Option<String> {
    match ty {
        Ty::UInt => Some(format!("mysql_integer_key({e}, 1)")),
        Ty::Dec(s) => Some(format!("mysql_decimal_key({e}, {s})")),
        Ty::Time => Some(format!("mysql_time_key({e})")),
        _ => None,
    }
}

/// An `ORDER BY` term of type `ty` as it sorts ([`sort_key_of`]).
fn sort_key(expr: &mut Expr, ty: Ty) {
    if let Some(made) = sort_key_of(&expr.to_string(), ty) {
        *expr = raw(made);
    }
}

/// `ORDER BY n` and `ORDER BY alias` of a select list item whose type SQLite sorts otherwise
/// ([`sort_key_of`]): by the item's key (its expression again, as SQLite computes an aggregate
/// once however often named). `items`: each item's address and type ([`Ordered`]).
fn order_by_keys(query: &mut Query, items: &[(usize, Option<Ty>)]) {
    let SetExpr::Select(select) = query.body.as_ref() else {
        return;
    };
    let Some(OrderBy {
        kind: OrderByKind::Expressions(by),
        ..
    }) = &mut query.order_by
    else {
        return;
    };
    for o in by.iter_mut() {
        let at = match &o.expr {
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) => n.parse::<usize>().ok().and_then(|k| k.checked_sub(1)),
                _ => None,
            },
            Expr::Identifier(i) if i.quote_style != Some('\'') => {
                select.projection.iter().position(|item| {
                    matches!(item, SelectItem::ExprWithAlias { alias, .. }
                        if alias.value.eq_ignore_ascii_case(&i.value))
                })
            }
            _ => None,
        };
        let (Some(k), Some(item)) = (at, at.and_then(|k| select.projection.get(k))) else {
            continue;
        };
        let (SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. }) = item else {
            continue;
        };
        if let Some(Some(ty)) = items.get(k).map(|i| i.1) {
            if let Some(made) = sort_key_of(&e.to_string(), ty) {
                o.expr = raw(made);
            }
        }
    }
}

/// Integer arithmetic with a BIGINT UNSIGNED (`+`, `-`, `*`, `%`, `DIV`, `MOD`): a whole
/// temporal operand (no fraction: `metas`' decimals) is the signed BIGINT MariaDB reads it as,
/// made its number here (`mysql_temporal_number`) so that [`unsigned`] computes it exactly:
/// `MOD(18446744073709551615, TIME '23:59:59')` is 94449 (not 94450 through a double). A sum
/// or difference with one is unsigned here, signed in MariaDB (its error 1690 from 2^63).
/// Returns the operands' types, such a temporal's an integer.
fn whole_temporals(expr: &mut Expr, kids: &[Ty], metas: &[Meta]) -> Vec<Ty> {
    use BinaryOperator as B;
    let arithmetic = match &*expr {
        Expr::BinaryOp { op, .. } => matches!(
            op,
            B::Plus | B::Minus | B::Multiply | B::Modulo | B::MyIntegerDivide
        ),
        Expr::Function(f) => f.name.to_string().eq_ignore_ascii_case("MOD"),
        _ => false,
    };
    let mut read = kids.to_vec();
    if !arithmetic || kids.len() != 2 || !kids.contains(&Ty::UInt) {
        return read;
    }
    for ((e, t), m) in typing::children_mut(expr)
        .into_iter()
        .zip(read.iter_mut())
        .zip(metas)
    {
        if matches!(t, Ty::Date | Ty::DateTime | Ty::Time) && m.decimals == 0 {
            wrap_in(e, "mysql_temporal_number");
            *t = Ty::Int;
        }
    }
    read
}

/// The least BIGINT as [`unsigned`] writes the literal `-9223372036854775808`.
const LEAST_BIGINT: &str = "(-9223372036854775807 - 1)";

/// `expr`'s BIGINT UNSIGNED operands ([`Ty::UInt`], held as their 64 bits), given their types
/// (`kids`, one per [`typing::children`]), read by MySQL's rules: where `expr` reads their
/// bits ([`typing::unsigned_reads`]), an operation SQLite would do on signed integers is made
/// ours (integer arithmetic exact by each operand's signedness, error 1690 out of range;
/// comparisons of integers by their exact values; a logical `>>`; `MIN`/`MAX` in unsigned
/// order; the bit operations' other operands read as 64 bits, rounded); anywhere else each is
/// read as its value (`mysql_unsigned_value`: an integer below 2^63, else its digits). Returns
/// the operands' types as they are read now.
fn unsigned(expr: &mut Expr, kids: &[Ty]) -> Vec<Ty> {
    use BinaryOperator as B;
    // The least BIGINT, exactly (a double past 2^53 otherwise).
    if let Expr::UnaryOp {
        op: UnaryOperator::Minus,
        expr: x,
    } = expr
    {
        if typing::unsigned_literal(x) == Some(1 << 63) {
            *expr = raw(LEAST_BIGINT.into());
            return vec![Ty::Int];
        }
        // Negated again, the DECIMAL MariaDB makes of it (`coldef::folded`), by its digits
        // (the least BIGINT met already made the integer above).
        let mut signs = 1;
        let mut at: &Expr = x;
        loop {
            match at {
                Expr::Nested(inner) => at = inner,
                Expr::UnaryOp {
                    op: UnaryOperator::Minus,
                    expr: inner,
                } => {
                    signs += 1;
                    at = inner;
                }
                _ => break,
            }
        }
        // What the rule made of an inner one: the least BIGINT (one sign), or 2^63's digits.
        let made = match at {
            Expr::Identifier(i) if i.value == LEAST_BIGINT => Some(1),
            Expr::Identifier(i) if i.value == "'-9223372036854775808'" => Some(1),
            Expr::Identifier(i) if i.value == "'9223372036854775808'" => Some(0),
            _ if signs >= 2 && typing::unsigned_literal(at) == Some(1 << 63) => Some(0),
            _ => None,
        };
        if let Some(inner) = made {
            signs += inner;
            let sign = if signs % 2 == 1 { "-" } else { "" };
            *expr = raw(format!("'{sign}9223372036854775808'"));
            return vec![Ty::Dec(0)];
        }
    }
    let reads = typing::unsigned_reads(expr, kids);
    let mut kids = kids.to_vec();
    let valued = typing::unsigned_value(expr);
    // A comparison with a DOUBLE or a string reads it as a double (with a DECIMAL, as the
    // exact DECIMAL it is: `decimals`).
    let compares = matches!(
        expr,
        Expr::BinaryOp {
            op: B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq | B::Spaceship,
            ..
        } | Expr::In { .. }
            | Expr::Between { .. }
    ) && !kids
        .iter()
        .all(|t| matches!(t, Ty::Int | Ty::UInt | Ty::Dec(_) | Ty::Null));
    // Compared as TIMEs, it is read by its 64 bits (`typing::coercer`'s
    // `mysql_time_key_unsigned`: `9223372036854775899 = TIME '00:00:00'`, 99 seconds no TIME).
    let as_time = compares && typing::comparison(&kids) == Some(typing::Coercion::Time);
    // What reads its operands as DOUBLEs: an operation with one, a cast to one.
    let as_double = match expr {
        Expr::BinaryOp { .. } => kids.contains(&Ty::Double),
        Expr::Cast { data_type, .. } => typing::cast_type(data_type) == Ty::Double,
        _ => false,
    };
    let temporals = typing::reads_temporals(expr, &kids);
    for (((e, t), bits), temporal) in typing::children_mut(expr)
        .into_iter()
        .zip(kids.iter_mut())
        .zip(&reads)
        .zip(temporals)
    {
        if *t == Ty::UInt && !bits && !as_time {
            // MariaDB reads a `BIT_AND`/`BIT_OR`/`BIT_XOR` as a DOUBLE by its signed bits
            // (`BIT_OR(-1) + 1e0` is 0, `BIT_OR(-1) > 1e0` 0): so do its DOUBLE readers here.
            let signed = as_double && is_bit_aggregate(e);
            if !signed {
                wrap_in(e, "mysql_unsigned_value");
            }
            // Compared with a double or a string, or read as a temporal, it is a number (its
            // digits past 2^63 would be a string's).
            if compares || temporal {
                wrap_in(e, "mysql_double");
            }
            *t = if signed { Ty::Int } else { valued };
        }
    }
    let integer = |t: &Ty| matches!(t, Ty::Int | Ty::UInt | Ty::Null);
    // A bit operation's operand that is no integer: its 64 bits, rounded as MySQL reads one (a
    // temporal is its number already: `numbered`).
    let read_as_bits = |slots: Vec<&mut Expr>, kids: &mut [Ty]| {
        for (e, t) in slots.into_iter().zip(kids.iter_mut()) {
            if matches!(t, Ty::Date | Ty::DateTime | Ty::Time) {
                // A temporal's number, its fraction rounded as any number's (MariaDB's
                // `val_int`: `~TIMESTAMP '2024-01-01 00:00:00.5'` reads 20240101000001).
                wrap_in(e, "mysql_temporal_number");
                wrap_in(e, "mysql_bits");
                *t = Ty::Int;
            } else if !integer(t) {
                wrap_in(e, "mysql_bits");
                *t = Ty::Int;
            }
        }
    };
    let any_unsigned = kids.contains(&Ty::UInt);
    match expr {
        Expr::BinaryOp {
            op: op @ (B::PGBitwiseShiftLeft | B::PGBitwiseShiftRight),
            left,
            right,
        } => {
            let left_shift = *op == B::PGBitwiseShiftLeft;
            let (mut left, mut right) = (left.clone(), right.clone());
            // A temporal is its number here, as where it is computed with (`numbered`).
            for (e, t) in [(&mut left, kids[0]), (&mut right, kids[1])] {
                if matches!(t, Ty::Date | Ty::DateTime | Ty::Time) {
                    wrap_in(e, "mysql_temporal_number");
                }
            }
            *expr = raw(format!(
                "mysql_shift({left}, {right}, {})",
                u8::from(left_shift)
            ));
        }
        Expr::BinaryOp {
            op: B::BitwiseAnd | B::BitwiseOr | B::BitwiseXor,
            ..
        }
        | Expr::UnaryOp {
            op: UnaryOperator::BitwiseNot,
            ..
        } => read_as_bits(typing::children_mut(expr), &mut kids),
        Expr::BinaryOp {
            op: op @ (B::Plus | B::Minus | B::Multiply | B::Modulo | B::MyIntegerDivide),
            left,
            right,
        } if any_unsigned && kids.iter().all(integer) => {
            let code = arithmetic_code(op);
            let signs = u8::from(kids[0] == Ty::UInt) | (u8::from(kids[1] == Ty::UInt) << 1);
            let result = if typing::unsigned_result(op, kids[0], kids[1]) {
                Ty::UInt
            } else {
                Ty::Int
            };
            *expr = raw(format!(
                "mysql_integer_arith('{code}', {left}, {right}, {signs})"
            ));
            return vec![result; 2];
        }
        Expr::BinaryOp {
            op: B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq | B::Spaceship,
            ..
        }
        | Expr::In { .. }
        | Expr::Between { .. }
            if any_unsigned && kids.iter().all(integer) =>
        {
            for (e, t) in typing::children_mut(expr).into_iter().zip(&kids) {
                if *t != Ty::Null {
                    let inner = std::mem::replace(e, Expr::Value(Value::Null.into()));
                    *e = raw(format!(
                        "mysql_integer_key({inner}, {})",
                        u8::from(*t == Ty::UInt)
                    ));
                }
            }
            return kids.iter().map(|_| Ty::Int).collect();
        }
        Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_uppercase();
            match name.as_str() {
                "BIT_COUNT" => read_as_bits(typing::children_mut(expr), &mut kids),
                // `NULLIF(a, b)` of integers: `a` as it is, unless their exact values are equal.
                "NULLIF" if any_unsigned && kids.len() == 2 && kids.iter().all(integer) => {
                    let texts: Vec<String> = typing::children_mut(expr)
                        .iter()
                        .map(|e| e.to_string())
                        .collect();
                    if let [a, b] = texts.as_slice() {
                        let key = |e: &str, t: Ty| {
                            format!("mysql_integer_key({e}, {})", u8::from(t == Ty::UInt))
                        };
                        *expr = raw(format!(
                            "(CASE WHEN {} = {} THEN NULL ELSE {a} END)",
                            key(a, kids[0]),
                            key(b, kids[1])
                        ));
                    }
                    return kids;
                }
                "MOD" if any_unsigned && kids.len() == 2 && kids.iter().all(integer) => {
                    let signs =
                        u8::from(kids[0] == Ty::UInt) | (u8::from(kids[1] == Ty::UInt) << 1);
                    let texts: Vec<String> = typing::children_mut(expr)
                        .iter()
                        .map(|e| e.to_string())
                        .collect();
                    if let [a, b] = texts.as_slice() {
                        *expr = raw(format!("mysql_integer_arith('%', {a}, {b}, {signs})"));
                    }
                    let result = if kids[0] == Ty::UInt {
                        Ty::UInt
                    } else {
                        Ty::Int
                    };
                    return vec![result; 2];
                }
                // The aggregates read each value as MariaDB's `val_int` does: a DOUBLE rounded
                // to even (`BIT_OR(2.5e0)` is 2), the rest by `BIT_OR` itself.
                "BIT_AND" | "BIT_OR" | "BIT_XOR" => {
                    for (e, t) in typing::children_mut(expr).into_iter().zip(&kids) {
                        let made = match t {
                            Ty::Double => format!("mysql_round_double({e}, 0)"),
                            // A DECIMAL (an unsigned integer merged with a signed one among
                            // them) is rounded and clipped to a BIGINT's range.
                            Ty::Dec(_) => format!("CAST({e} AS REAL)"),
                            _ => continue,
                        };
                        *e = raw(made);
                    }
                }
                // In unsigned order: each value's top bit flipped, and back.
                "MIN" | "MAX" | "GREATEST" | "LEAST"
                    if any_unsigned && reads.first() == Some(&true) =>
                {
                    for e in typing::children_mut(expr) {
                        wrap_in(e, "mysql_unsigned_flip");
                    }
                    *expr = raw(format!("mysql_unsigned_flip({expr})"));
                }
                // What leaves an unsigned integer as it is: itself (`ROUND(x, d)` only where
                // `d` is a literal of no fewer digits: `typing::unsigned_reads`).
                "FLOOR" | "CEIL" | "CEILING" | "ABS" | "ROUND" | "TRUNCATE"
                    if reads.first() == Some(&true) && kids[0] == Ty::UInt =>
                {
                    let x = typing::children_mut(expr).first().map(|x| (**x).clone());
                    if let Some(x) = x {
                        *expr = Expr::Nested(Box::new(x));
                    }
                    return vec![Ty::UInt; kids.len()];
                }
                _ => {}
            }
        }
        Expr::Ceil { expr: x, .. } | Expr::Floor { expr: x, .. }
            if kids.first() == Some(&Ty::UInt) && reads.first() == Some(&true) =>
        {
            let x = std::mem::replace(x.as_mut(), Expr::Value(Value::Null.into()));
            *expr = Expr::Nested(Box::new(x));
        }
        _ => {}
    }
    kids
}

/// DECIMALs computed exactly, as MySQL computes them (`super::decimal`), where SQLite would
/// compute doubles, given `expr`'s type `ty` and its operands' types as met (`met`) and as
/// read now (`read`, after [`unsigned`] and [`numbered`]). One rule per operator class and per
/// consumer: `+ - * / %` (and `MOD`) whose result is a DECIMAL, and a DECIMAL negated, on each
/// operand's exact digits (`mysql_decimal_op`), its `ABS` too; `DIV` of operands not both integers, the exact
/// quotient cut (`mysql_decimal_int_div`); a comparison of exact numbers where one is a
/// DECIMAL, by keys that order the values whichever form SQLite holds them in, each value
/// rounded to its type's scale as MariaDB compares them (`1/3 = 0.3333` is 1, `(1/3)*3 = 1`
/// too, where `(1/3) - 0.333333333` is 0: `mysql_decimal_key`); `MIN`/`MAX` of DECIMALs by
/// those keys; `SUM` of exact numbers exact (`mysql_decimal_sum`: past 2^63 a DECIMAL, as
/// MySQL's), but of integers no wider than 32 bits (what typing `found` of each operand says),
/// which SQLite sums as fast as before and no pool takes past 2^63; `AVG` of exact numbers the
/// exact quotient of its sum and count; `SUM`/`AVG` of doubles added without compensation
/// (`mysql_double_sum`, `mysql_double_avg`), as MariaDB adds them; where the sums are stored
/// (`sums_stored`: [`DecimalKeys::sums_stored`]) or the values are `DISTINCT`, each DECIMAL
/// added rounded to its scale.
fn decimals(
    expr: &mut Expr,
    met: &[Ty],
    read: &[Ty],
    ty: Ty,
    found: &[Option<(Ty, Meta)>],
    sums_stored: bool,
) {
    use BinaryOperator as B;
    let exact = |t: &Ty| {
        matches!(
            t,
            Ty::Int | Ty::UInt | Ty::Dec(_) | Ty::Date | Ty::DateTime | Ty::Time
        )
    };
    let scale = |t: Ty| match t {
        Ty::Dec(s) => u32::from(s),
        _ => 0,
    };
    let decimal = matches!(ty, Ty::Dec(_));
    let op = |code: &str, a: &dyn std::fmt::Display, b: &dyn std::fmt::Display| {
        raw(format!(
            "mysql_decimal_op('{code}', {a}, {b}, {}, {}, {})",
            scale(read[0]),
            scale(read[1]),
            typing::div_increment()
        ))
    };
    match expr {
        Expr::BinaryOp {
            left,
            op: o @ (B::Plus | B::Minus | B::Multiply | B::Divide | B::Modulo),
            right,
        } if decimal && read.iter().all(exact) => {
            *expr = op(arithmetic_code(o), left, right);
        }
        Expr::BinaryOp {
            left,
            op: B::MyIntegerDivide,
            right,
        } if !read
            .iter()
            .all(|t| matches!(t, Ty::Int | Ty::UInt | Ty::Null | Ty::Date | Ty::DateTime | Ty::Time))
            && read.iter().all(|t| *t != Ty::Other) =>
        {
            *expr = raw(format!(
                "mysql_decimal_int_div({left}, {right}, {})",
                u8::from(ty == Ty::UInt || met.contains(&Ty::UInt))
            ));
        }
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr: x,
        } if decimal && read.iter().all(exact) => {
            *expr = raw(format!("mysql_decimal_neg({x})"));
        }
        Expr::BinaryOp {
            op: B::Eq | B::NotEq | B::Lt | B::LtEq | B::Gt | B::GtEq | B::Spaceship,
            ..
        }
        | Expr::In { .. }
        | Expr::Between { .. }
            // (A temporal beside a number compares as a DATETIME: `coerce`.)
            if read
                .iter()
                .all(|t| matches!(t, Ty::Int | Ty::UInt | Ty::Dec(_) | Ty::Null))
                && read.iter().any(|t| matches!(t, Ty::Dec(_))) =>
        {
            for (e, t) in typing::children_mut(expr).into_iter().zip(read) {
                if *t != Ty::Null {
                    let inner = std::mem::replace(e, Expr::Value(Value::Null.into()));
                    *e = raw(format!("mysql_decimal_key({inner}, {})", scale(*t)));
                }
            }
        }
        Expr::Function(f) if f.over.is_none() => {
            let name = f.name.to_string().to_ascii_uppercase();
            let FunctionArguments::List(list) = &f.args else {
                return;
            };
            let distinct = matches!(list.duplicate_treatment, Some(DuplicateTreatment::Distinct));
            let texts: Vec<String> = list.args.iter().map(|a| a.to_string()).collect();
            match (name.as_str(), texts.as_slice(), met, read) {
                ("MOD", [a, b], _, [l, r]) if decimal && exact(l) && exact(r) => {
                    *expr = op("%", a, b);
                }
                // (SQLite's `ABS` of a DECIMAL held as text would be a double's digits.)
                ("ABS", [x], _, [r]) if decimal && exact(r) => {
                    *expr = raw(format!("mysql_decimal_abs({x})"));
                }
                // The least or greatest by the values' keys (one wider than a double is held as
                // text, which SQLite would order after every number), given back as values.
                ("MIN" | "MAX", [x], _, [Ty::Dec(s)]) if list.clauses.is_empty() => {
                    let x = if distinct {
                        format!("DISTINCT {x}")
                    } else {
                        x.clone()
                    };
                    *expr = raw(format!(
                        "mysql_decimal_unkey({name}(mysql_decimal_key({x}, {s})))"
                    ));
                }
                // TIMEs by value (their text sorts `100:00:00` before `12:00:00`): each one's
                // value key with its text after it, the text given back.
                ("MIN" | "MAX", [x], _, [Ty::Time]) if list.clauses.is_empty() => {
                    let x = if distinct {
                        format!("DISTINCT {x}")
                    } else {
                        x.clone()
                    };
                    *expr = raw(format!("mysql_time_unkey({name}(mysql_time_keyed({x})))"));
                }
                ("SUM" | "AVG", [x], [m], [r]) if exact(r) && list.clauses.is_empty() => {
                    // (A temporal's sum stays SQLite's; so does one of integers of 32 bits, which
                    // no pool's rows take past 2^63: `SUM(status)`.)
                    let narrow = matches!(found.first(), Some(Some((_, meta)))
                        if meta.code == super::coldef::Code::Long);
                    if name == "SUM" && (!matches!(m, Ty::Int | Ty::UInt | Ty::Dec(_)) || narrow) {
                        return;
                    }
                    // (`DISTINCT` values are kept in a temporary table's field of their type.)
                    let x = match r {
                        Ty::Dec(s) if (sums_stored || distinct) && *s > 0 => {
                            format!("mysql_decimal({x}, {s}, 65)")
                        }
                        _ => x.clone(),
                    };
                    let x = if distinct { format!("DISTINCT {x}") } else { x };
                    // (Of integers too: their sum may pass 2^63, where MySQL's is an exact
                    // DECIMAL.)
                    let sum = format!("mysql_decimal_sum({x})");
                    *expr = if name == "SUM" {
                        raw(sum)
                    } else {
                        raw(format!(
                            "mysql_decimal_op('/', {sum}, COUNT({x}), {}, 0, {})",
                            scale(*r),
                            typing::div_increment()
                        ))
                    };
                }
                // Doubles added one after another, as MariaDB adds them (SQLite compensates).
                ("SUM" | "AVG", [x], _, [Ty::Double]) if list.clauses.is_empty() => {
                    let x = if distinct {
                        format!("DISTINCT {x}")
                    } else {
                        x.clone()
                    };
                    let f = if name == "SUM" { "sum" } else { "avg" };
                    *expr = raw(format!("mysql_double_{f}({x})"));
                }
                _ => {}
            }
        }
        _ => {}
    }
}

/// Whether `e` is a `BIT_AND`, `BIT_OR` or `BIT_XOR`.
fn is_bit_aggregate(e: &Expr) -> bool {
    matches!(e, Expr::Function(f) if ["BIT_AND", "BIT_OR", "BIT_XOR"]
        .contains(&f.name.to_string().to_ascii_uppercase().as_str()))
}

/// `GREATEST`/`LEAST` of a DATE or DATETIME among numbers or strings
/// ([`typing::temporal_greatest`]): its operands compared as DATETIMEs (`coerce`), the one
/// found written as the result's type, a DATE, or a DATETIME or TIME of the fraction digits its
/// operands are read with (`coldef::greatest_temporal_digits`: `GREATEST(DATE '2024-03-05',
/// 0.2)` is 2024-03-05, `LEAST` of them 0000-00-00, `GREATEST('', TIMESTAMP '2038-01-19
/// 03:14:07')` 2038-01-19 03:14:07.000000).
fn greatest_temporal(expr: &mut Expr, ty: Ty, fraction: u8) {
    let inner = std::mem::replace(expr, Expr::Value(Value::Null.into()));
    *expr = raw(match ty {
        Ty::Date => format!("date({inner})"),
        Ty::Time => format!("mysql_cast_time({inner}, {fraction})"),
        _ => format!("mysql_cast_datetime({inner}, {fraction})"),
    });
}

/// The fraction digits of a `GREATEST`/`LEAST` that [`greatest_temporal`] makes a DATE,
/// DATETIME or TIME, given its operands' types (`kids`) and declarations (`metas`), and its own
/// definition as typing found it (`found`, from the tree as written: a literal operand's digits
/// are as written, where its translation may no longer show them); `None` for another
/// expression.
fn greatest_fraction(
    expr: &Expr,
    kids: &[Ty],
    ty: Ty,
    metas: &[Meta],
    found: Option<Meta>,
) -> Option<u8> {
    let Expr::Function(f) = expr else { return None };
    let name = f.name.to_string().to_ascii_uppercase();
    if !matches!(name.as_str(), "GREATEST" | "LEAST") || typing::temporal_greatest(kids) != Some(ty)
    {
        return None;
    }
    Some(match found {
        Some(m)
            if matches!(
                m.code,
                super::coldef::Code::DateTime | super::coldef::Code::Time
            ) =>
        {
            m.decimals
        }
        _ => {
            let args = typing::children(expr);
            super::coldef::greatest_temporal_digits(&args, metas, ty == Ty::Time).0
        }
    })
}

/// `ADDTIME`/`SUBTIME` of a string (`ADDTIME('10:00:00', '01:00:00.25')`) are strings, whose
/// fraction MariaDB writes with 6 digits where it is not zero, and none where it is
/// (`Item_func_add_time` of `NOT_FIXED_DEC` decimals, `AUTO_SEC_PART_DIGITS` as it prints them):
/// 11:00:00.250000, where the operands' digits would say 11:00:00.25.
fn auto_fraction(expr: &mut Expr, ty: Ty) {
    let Expr::Function(f) = &*expr else { return };
    if ty == Ty::Text
        && matches!(
            f.name.to_string().to_ascii_uppercase().as_str(),
            "ADDTIME" | "SUBTIME"
        )
    {
        wrap_in(expr, "mysql_auto_fraction");
    }
}

/// The fraction digits a string moved by an interval (`DATE_ADD(s, INTERVAL …)`, `s +
/// INTERVAL …`, of type `ty`, declared `meta`) is shown with where it is a DATETIME: those it
/// is declared with (`coldef`'s `moved_string`: a string the rows give 6), as MariaDB writes
/// it (`'2026-12-01 01:00:00.000000'`; a fraction `DATE_FORMAT` wrote cut). `None` for
/// anything else.
fn moved_string_digits(expr: &Expr, ty: Ty, meta: Option<Meta>) -> Option<u8> {
    let meta = meta.filter(|m| ty == Ty::Text && m.code == Code::String)?;
    super::coldef::is_moved_string(expr).then_some(meta.decimals.min(6))
}

/// `e` made `f(e)`.
fn wrap_in(e: &mut Expr, f: &str) {
    let inner = std::mem::replace(e, Expr::Value(Value::Null.into()));
    *e = raw(format!("{f}({inner})"));
}

/// The temporal operands of an expression that reads numbers ([`typing::reads_numbers`]),
/// each as its number (`mysql_temporal_number`), given their types (`kids`, one per
/// [`typing::children`]). A DATETIME or TIME rounded keeps its type: `ROUND`/`TRUNCATE` to
/// their fraction digits, `FLOOR`/`CEIL` as it is.
fn numbered(expr: &mut Expr, kids: &[Ty]) {
    let Some(reading) = typing::reads_numbers(expr) else {
        return;
    };
    if reading == typing::Reading::Rounded && matches!(kids.first(), Some(Ty::DateTime | Ty::Time))
    {
        let time = u8::from(kids.first() == Some(&Ty::Time));
        let rounds = match &*expr {
            Expr::Function(f) => {
                let name = f.name.to_string().to_ascii_uppercase();
                ["ROUND", "TRUNCATE"]
                    .contains(&name.as_str())
                    .then(|| u8::from(name == "ROUND"))
            }
            _ => None,
        };
        *expr = match (typing::children(expr).as_slice(), rounds) {
            // `ROUND(t, n)`/`TRUNCATE(t, n)`: to `n` fraction digits; NULL digits, NULL.
            ([value], Some(round)) => {
                raw(format!("mysql_temporal_round({value}, 0, {round}, {time})"))
            }
            ([value, digits], Some(round)) => raw(format!(
                "mysql_temporal_round({value}, {digits}, {round}, {time})"
            )),
            // `FLOOR`/`CEIL`: itself.
            ([value], None) => Expr::Nested(Box::new((*value).clone())),
            _ => return,
        };
        return;
    }
    let number = if typing::truncates_temporals(expr) {
        "mysql_temporal_integer"
    } else {
        "mysql_temporal_number"
    };
    let wrap = |e: &mut Expr, t: Ty| {
        if typing::as_number(reading, t).is_some() {
            let inner = std::mem::replace(e, Expr::Value(Value::Null.into()));
            *e = raw(format!("{number}({inner})"));
        }
    };
    match expr {
        Expr::BinaryOp { left, right, .. } => {
            wrap(left, kids[0]);
            wrap(right, kids[1]);
        }
        Expr::UnaryOp { expr: x, .. }
        | Expr::Cast { expr: x, .. }
        | Expr::Convert { expr: x, .. }
        | Expr::Ceil { expr: x, .. }
        | Expr::Floor { expr: x, .. } => wrap(x, kids[0]),
        Expr::Function(f) => {
            if let FunctionArguments::List(list) = &mut f.args {
                let args = list.args.iter_mut().filter_map(|a| match a {
                    FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => Some(e),
                    _ => None,
                });
                for (e, t) in args.zip(kids) {
                    wrap(e, *t);
                }
            }
        }
        _ => {}
    }
}

/// `MAKE_SET(bits, …)` and `EXPORT_SET(bits, …)`: their first argument read as a number (a
/// temporal as its digits, as [`numbered`] reads the operands of a function of numbers alone).
fn numbered_bits(expr: &mut Expr, kids: &[Ty]) {
    let Expr::Function(f) = expr else { return };
    let name = f.name.to_string().to_ascii_uppercase();
    if !matches!(name.as_str(), "MAKE_SET" | "EXPORT_SET") {
        return;
    }
    if let (FunctionArguments::List(list), Some(t)) = (&mut f.args, kids.first()) {
        if let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(e))) = list.args.first_mut() {
            if typing::as_number(typing::Reading::Numbers, *t).is_some() {
                let inner = std::mem::replace(e, Expr::Value(Value::Null.into()));
                *e = raw(format!("mysql_temporal_number({inner})"));
            }
        }
    }
}

/// The calls that read their arguments at these positions as dates (MariaDB's `get_date`), a
/// TIME among them as today at that time. (`DATE_FORMAT` reads a TIME as a TIME.)
const DATE_READERS: &[(&str, &[usize])] = &[
    ("YEAR", &[0]),
    ("QUARTER", &[0]),
    ("MONTH", &[0]),
    ("DAY", &[0]),
    ("DAYOFMONTH", &[0]),
    ("DAYOFWEEK", &[0]),
    ("WEEKDAY", &[0]),
    ("DAYOFYEAR", &[0]),
    ("WEEK", &[0]),
    ("YEARWEEK", &[0]),
    ("WEEKOFYEAR", &[0]),
    ("DAYNAME", &[0]),
    ("MONTHNAME", &[0]),
    ("TO_DAYS", &[0]),
    ("TO_SECONDS", &[0]),
    ("DATE", &[0]),
    ("LAST_DAY", &[0]),
    ("UNIX_TIMESTAMP", &[0]),
    ("CONVERT_TZ", &[0]),
    ("DATEDIFF", &[0, 1]),
    ("TIMESTAMPDIFF", &[1, 2]),
];

/// A TIME where a date is read, given the operands' types (`kids`, one per
/// [`typing::children`]): today at that time (`mysql_time_datetime`), as MariaDB reads one
/// (`CAST(TIME '12:34:56' AS DATE)` is today, `UNIX_TIMESTAMP(TIME …)` today's second).
/// `EXTRACT` reads it as a TIME (`mysql_extract(unit, t, 1)`: its days its hours over 24).
fn dated_time(expr: &mut Expr, kids: &[Ty]) {
    if !kids.contains(&Ty::Time) {
        return;
    }
    match expr {
        Expr::Cast {
            expr: value,
            data_type: DataType::Date | DataType::Datetime(_) | DataType::Timestamp(..),
            ..
        } => wrap_in(value, "mysql_time_datetime"),
        Expr::Extract {
            field, expr: value, ..
        } => {
            let unit = quote(&field.to_string().to_ascii_uppercase());
            *expr = raw(format!("mysql_extract({unit}, {value}, 1)"));
        }
        Expr::Function(f) => {
            let name = f.name.to_string().to_ascii_uppercase();
            let Some((_, at)) = DATE_READERS.iter().find(|(n, _)| *n == name) else {
                return;
            };
            let FunctionArguments::List(list) = &mut f.args else {
                return;
            };
            for (k, (a, t)) in list.args.iter_mut().zip(kids).enumerate() {
                if let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = a {
                    if *t == Ty::Time && at.contains(&k) {
                        wrap_in(e, "mysql_time_datetime");
                    }
                }
            }
        }
        _ => {}
    }
}

/// A TIME as a truth value, an operand of `AND`, `OR`, `XOR` or `NOT` (given the operands'
/// types, `kids`): its number, as MySQL reads it (`SEC_TO_TIME(1)` is 1, true), where SQLite
/// would read its text's leading digits (0). `WHERE`/`HAVING` of one: `post_visit_select`.
fn time_truths(expr: &mut Expr, kids: &[Ty]) {
    let slots: Vec<&mut Expr> = match expr {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And | BinaryOperator::Or | BinaryOperator::Xor,
            right,
        } => vec![left.as_mut(), right.as_mut()],
        Expr::UnaryOp {
            op: UnaryOperator::Not,
            expr: x,
        } => vec![x.as_mut()],
        _ => return,
    };
    for (e, t) in slots.into_iter().zip(kids) {
        if *t == Ty::Time {
            wrap_in(e, "mysql_temporal_number");
        }
    }
}

/// A TIME moved by an interval of a day or less (`t ± INTERVAL n UNIT`, `DATE_ADD(t, INTERVAL
/// n UNIT)` and its kin), where the typing says `t` is a TIME: `mysql_time_add`, which reads it
/// as a TIME (`mysql_date_add` reads its operand as a date, as it must a string's).
fn moved_time(expr: &mut Expr, kids: &[Ty]) {
    let call = |t: &Expr, i: &sqlparser::ast::Interval, minus: bool| -> Option<Expr> {
        if typing::moves_a_time(i) != Some(true) {
            return None;
        }
        let ControlFlow::Continue((amount, unit)) = interval(i) else {
            return None;
        };
        let sign = if minus { "-" } else { "" };
        Some(raw(format!(
            "mysql_time_add({t}, {sign}({amount}), {})",
            quote(&unit)
        )))
    };
    let made = match expr {
        Expr::BinaryOp { left, op, right } if kids.len() == 2 => {
            match (left.as_ref(), &*op, right.as_ref()) {
                (t, BinaryOperator::Plus | BinaryOperator::Minus, Expr::Interval(i))
                    if kids[0] == Ty::Time =>
                {
                    call(t, i, matches!(op, BinaryOperator::Minus))
                }
                (Expr::Interval(i), BinaryOperator::Plus, t) if kids[1] == Ty::Time => {
                    call(t, i, false)
                }
                _ => None,
            }
        }
        Expr::Function(f) if kids.len() == 2 && kids[0] == Ty::Time => {
            let name = f.name.to_string().to_ascii_uppercase();
            let minus = match name.as_str() {
                "DATE_ADD" | "ADDDATE" => false,
                "DATE_SUB" | "SUBDATE" => true,
                _ => return,
            };
            let FunctionArguments::List(list) = &f.args else {
                return;
            };
            match list.args.as_slice() {
                [FunctionArg::Unnamed(FunctionArgExpr::Expr(t)), FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Interval(i)))] => {
                    call(t, i, minus)
                }
                // `ADDDATE(t, n)`, `SUBDATE(t, n)`: by `n` days.
                [FunctionArg::Unnamed(FunctionArgExpr::Expr(t)), FunctionArg::Unnamed(FunctionArgExpr::Expr(n))]
                    if name.ends_with("DATE") =>
                {
                    let sign = if minus { "-" } else { "" };
                    Some(raw(format!("mysql_time_add({t}, {sign}({n}), 'DAY')")))
                }
                _ => None,
            }
        }
        // `TIMESTAMPADD(unit, n, t)` by a day or less.
        Expr::Function(f)
            if kids.len() == 3
                && kids[2] == Ty::Time
                && f.name.to_string().eq_ignore_ascii_case("TIMESTAMPADD") =>
        {
            let FunctionArguments::List(list) = &f.args else {
                return;
            };
            match list.args.as_slice() {
                [FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Identifier(unit))), FunctionArg::Unnamed(FunctionArgExpr::Expr(n)), FunctionArg::Unnamed(FunctionArgExpr::Expr(t))] =>
                {
                    let unit = unit.value.to_ascii_uppercase();
                    matches!(
                        unit.as_str(),
                        "DAY" | "HOUR" | "MINUTE" | "SECOND" | "MICROSECOND"
                    )
                    .then(|| raw(format!("mysql_time_add({t}, ({n}), {})", quote(&unit))))
                }
                _ => None,
            }
        }
        _ => None,
    };
    if let Some(made) = made {
        *expr = made;
    }
}

/// `-x` of a double or a string `x` (read as a double) is the double of the other sign, as in
/// MySQL: `-''` and `-0e0` are -0.0, whose sign `ATAN2` keeps. SQLite's `-x` is `0 - x`, which
/// makes -0.0 of 0.0; multiplied by -1.0 a zero changes sign.
fn negated_double(expr: &mut Expr, kids: &[Ty]) {
    let Expr::UnaryOp {
        op: UnaryOperator::Minus,
        expr: x,
    } = expr
    else {
        return;
    };
    let made = match kids {
        [Ty::Text] => format!("(CAST({x} AS REAL) * -1.0)"),
        [Ty::Double] => format!("({x} * -1.0)"),
        _ => return,
    };
    *expr = raw(made);
}

/// Whether `expr` is `x IS NULL` (or `ISNULL(x)`, `x IS UNKNOWN`).
fn is_null_test(expr: &Expr) -> bool {
    match expr {
        Expr::IsNull(_) | Expr::IsUnknown(_) => true,
        Expr::Function(f) => f.name.to_string().eq_ignore_ascii_case("ISNULL"),
        _ => false,
    }
}

/// A comparison's operands brought to one type by MySQL's rule ([`typing::comparison`]), given
/// their types (`kids`, one per [`typing::children`]): each that is not of that type already is
/// wrapped in the call that converts it.
fn coerce(expr: &mut Expr, kids: &[Ty]) {
    let wrap = |e: &mut Expr, c: typing::Coercion, t: Ty| {
        if let Some(f) = typing::coercer(c, t) {
            let inner = std::mem::replace(e, Expr::Value(Value::Null.into()));
            *e = raw(format!("{f}({inner})"));
        }
    };
    match expr {
        Expr::BinaryOp { left, op, right } if typing::is_comparison(op) => {
            if let Some(c) = typing::comparison(kids) {
                wrap(left, c, kids[0]);
                wrap(right, c, kids[1]);
            }
        }
        Expr::In {
            expr: value,
            target: InTarget::List(list),
            negated,
            ..
        } => {
            // The value compares with each item by that pair's types, as MySQL's IN does
            // where its items' types differ: one coercion for all where every pair takes the
            // same, else the comparisons one by one (`x IN (a, b)` is `x = a OR x = b`).
            let pairs: Vec<Option<typing::Coercion>> = kids[1..]
                .iter()
                .map(|t| typing::comparison(&[kids[0], *t]))
                .collect();
            if pairs.windows(2).all(|w| w[0] == w[1]) {
                if let Some(Some(c)) = pairs.first() {
                    wrap(value, *c, kids[0]);
                    for (e, t) in list.iter_mut().zip(&kids[1..]) {
                        wrap(e, *c, *t);
                    }
                }
                return;
            }
            let mut chain: Option<Expr> = None;
            for ((item, t), c) in list.iter().zip(&kids[1..]).zip(&pairs) {
                let (mut left, mut right) = ((**value).clone(), item.clone());
                if let Some(c) = c {
                    wrap(&mut left, *c, kids[0]);
                    wrap(&mut right, *c, *t);
                }
                let eq = Expr::Nested(Box::new(Expr::BinaryOp {
                    left: Box::new(left),
                    op: BinaryOperator::Eq,
                    right: Box::new(right),
                }));
                chain = Some(match chain {
                    None => eq,
                    Some(before) => Expr::BinaryOp {
                        left: Box::new(before),
                        op: BinaryOperator::Or,
                        right: Box::new(eq),
                    },
                });
            }
            let Some(chain) = chain else { return };
            let chain = Expr::Nested(Box::new(chain));
            *expr = if *negated {
                Expr::UnaryOp {
                    op: sqlparser::ast::UnaryOperator::Not,
                    expr: Box::new(chain),
                }
            } else {
                chain
            };
        }
        Expr::Between {
            expr: value,
            low,
            high,
            ..
        } => {
            if let Some(c) = typing::comparison(kids) {
                wrap(value, c, kids[0]);
                wrap(low, c, kids[1]);
                wrap(high, c, kids[2]);
            }
        }
        Expr::Case {
            operand: Some(operand),
            conditions,
            ..
        } => {
            // The operand and the WHEN values compare; the results do not.
            let compared: Vec<Ty> = std::iter::once(kids[0])
                .chain((0..conditions.len()).map(|k| kids[1 + 2 * k]))
                .collect();
            if let Some(c) = typing::comparison(&compared) {
                wrap(operand, c, compared[0]);
                for (w, t) in conditions.iter_mut().zip(&compared[1..]) {
                    wrap(&mut w.condition, c, *t);
                }
            }
        }
        // A double rounds half to even (MySQL's `rint`); a DECIMAL by its exact digits, half
        // away from zero (held as text where no double has its digits: `1795996619 / 60`, which
        // a string's cast would cut). A negative one is no UNSIGNED: 0, as MySQL clips it.
        Expr::Cast {
            expr: value,
            data_type:
                data_type @ (DataType::Signed
                | DataType::SignedInteger
                | DataType::Unsigned
                | DataType::UnsignedInteger),
            ..
        } if matches!(kids[0], Ty::Double | Ty::Dec(_)) => {
            let inner = std::mem::replace(value.as_mut(), Expr::Value(Value::Null.into()));
            let rounded = if kids[0] == Ty::Double {
                format!("mysql_round_double({inner}, 0)")
            } else {
                format!("mysql_decimal({inner}, 0, 65)")
            };
            **value = raw(
                if matches!(data_type, DataType::Unsigned | DataType::UnsignedInteger) {
                    format!("max({rounded}, 0)")
                } else {
                    rounded
                },
            );
        }
        Expr::Function(f)
            if kids.first() == Some(&Ty::Double)
                && ["ROUND", "FORMAT"]
                    .contains(&f.name.to_string().to_ascii_uppercase().as_str()) =>
        {
            let FunctionArguments::List(list) = &mut f.args else {
                return;
            };
            let digits = match list.args.get(1) {
                Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(d))) => d.to_string(),
                None => "0".into(),
                _ => return,
            };
            if let Some(FunctionArg::Unnamed(FunctionArgExpr::Expr(x))) = list.args.first_mut() {
                *x = raw(format!("mysql_round_double({x}, {digits})"));
            }
        }
        // `NULLIF(a, b)`: `a` unless it equals `b`, compared by their types' rule.
        Expr::Function(f)
            if f.name.to_string().eq_ignore_ascii_case("NULLIF") && kids.len() == 2 =>
        {
            let Some(c) = typing::comparison(kids) else {
                return;
            };
            let FunctionArguments::List(list) = &f.args else {
                return;
            };
            let [FunctionArg::Unnamed(FunctionArgExpr::Expr(a)), FunctionArg::Unnamed(FunctionArgExpr::Expr(b))] =
                list.args.as_slice()
            else {
                return;
            };
            let (mut left, mut right) = (a.clone(), b.clone());
            wrap(&mut left, c, kids[0]);
            wrap(&mut right, c, kids[1]);
            *expr = raw(format!(
                "(CASE WHEN ({left}) = ({right}) THEN NULL ELSE {a} END)"
            ));
        }
        // `FIELD(x, a, b, …)` compares as strings where all are strings (a temporal is one
        // here, as its result type is), as numbers where all are numbers, else as doubles.
        Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("FIELD") => {
            let string = |t: &Ty| {
                matches!(
                    t,
                    Ty::Text | Ty::Binary | Ty::Date | Ty::DateTime | Ty::Time | Ty::Null
                )
            };
            let number = |t: &Ty| matches!(t, Ty::Int | Ty::Dec(_) | Ty::Double | Ty::Null);
            if kids.contains(&Ty::Other) || kids.iter().all(string) || kids.iter().all(number) {
                return;
            }
            if let FunctionArguments::List(list) = &mut f.args {
                for (a, t) in list.args.iter_mut().zip(kids) {
                    if let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = a {
                        match t {
                            Ty::Date | Ty::DateTime | Ty::Time => {
                                *e = raw(format!("mysql_temporal_number({e})"))
                            }
                            Ty::Text | Ty::Binary => *e = raw(format!("mysql_double({e})")),
                            _ => {}
                        }
                    }
                }
            }
        }
        Expr::Function(f)
            if ["GREATEST", "LEAST"]
                .contains(&f.name.to_string().to_ascii_uppercase().as_str()) =>
        {
            let Some(c) = typing::comparison(kids) else {
                return;
            };
            let time = c == typing::Coercion::Time;
            let name = f.name.to_string().to_ascii_lowercase();
            if let FunctionArguments::List(list) = &mut f.args {
                for (a, t) in list.args.iter_mut().zip(kids) {
                    if let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = a {
                        // Among TIMEs, what reads as no TIME makes the result NULL (MariaDB's
                        // `get_time` of each operand fails), where `=` compares it as 00:00:00.
                        match (time, t) {
                            (true, Ty::Time | Ty::Null) => {}
                            (true, _) => wrap_in(e, "time"),
                            _ => wrap(e, c, *t),
                        }
                    }
                }
                // TIMEs picked by value (`dates`' `mysql_greatest_time`), not by their text.
                if time {
                    let args: Vec<String> = list.args.iter().map(ToString::to_string).collect();
                    *expr = raw(format!("mysql_{name}_time({})", args.join(", ")));
                }
            }
        }
        _ => {}
    }
}

/// A binary operation as SQLite evaluates MySQL's, its operands parenthesized.
fn binary(
    left: &mut Box<Expr>,
    op: &mut BinaryOperator,
    right: &mut Box<Expr>,
) -> ControlFlow<(), Option<Expr>> {
    // `d ± INTERVAL n UNIT`, `INTERVAL n UNIT + d`.
    let minus = matches!(op, BinaryOperator::Minus);
    if matches!(op, BinaryOperator::Plus | BinaryOperator::Minus) {
        let (date, i) = match (left.as_ref(), right.as_ref()) {
            (_, Expr::Interval(_)) if matches!(left.as_ref(), Expr::Interval(_)) => {
                return ControlFlow::Break(())
            }
            (d, Expr::Interval(i)) => (d, i),
            (Expr::Interval(i), d) if !minus => (d, i),
            (Expr::Interval(_), _) => return ControlFlow::Break(()),
            _ => return plain(left, op, right),
        };
        let (amount, unit) = interval(i)?;
        return ControlFlow::Continue(Some(raw(format!(
            "mysql_date_add({date}, {}({amount}), {})",
            if minus { "-" } else { "" },
            quote(&unit)
        ))));
    }
    plain(left, op, right)
}

/// A binary operation without an interval.
fn plain(
    left: &mut Box<Expr>,
    op: &mut BinaryOperator,
    right: &mut Box<Expr>,
) -> ControlFlow<(), Option<Expr>> {
    paren(left);
    paren(right);
    let call = |name: &str, left: &Expr, right: &Expr| raw(format!("{name}({left}, {right})"));
    ControlFlow::Continue(match op {
        BinaryOperator::Divide => {
            // MySQL divides as decimals do (`7/2` is 3.5); SQLite cuts integers. A zero
            // divisor is counted (warning 1365) on its way to SQLite's NULL.
            let scaled = Expr::Nested(Box::new(Expr::BinaryOp {
                left: left.clone(),
                op: BinaryOperator::Multiply,
                right: Box::new(raw("1.0".into())),
            }));
            **left = scaled;
            let nonzero = matches!(&**right, Expr::Value(v)
                if matches!(&v.value, Value::Number(n, _) if n.parse::<f64>().is_ok_and(|n| n != 0.0)));
            if !nonzero {
                **right = raw(format!("mysql_divisor({right})"));
            }
            None
        }
        BinaryOperator::MyIntegerDivide => Some(call("mysql_div", left, right)),
        BinaryOperator::Modulo => Some(call("mysql_mod", left, right)),
        BinaryOperator::Xor => Some(call("mysql_xor", left, right)),
        BinaryOperator::BitwiseXor => Some(call("mysql_bitxor", left, right)),
        // MySQL's `||` is OR (unless `PIPES_AS_CONCAT`).
        BinaryOperator::StringConcat => {
            *op = BinaryOperator::Or;
            None
        }
        BinaryOperator::Spaceship => Some(raw(format!("({left} IS {right})"))),
        BinaryOperator::Plus
        | BinaryOperator::Minus
        | BinaryOperator::Multiply
        | BinaryOperator::Gt
        | BinaryOperator::Lt
        | BinaryOperator::GtEq
        | BinaryOperator::LtEq
        | BinaryOperator::Eq
        | BinaryOperator::NotEq
        | BinaryOperator::And
        | BinaryOperator::Or
        | BinaryOperator::BitwiseOr
        | BinaryOperator::BitwiseAnd
        | BinaryOperator::PGBitwiseShiftLeft
        | BinaryOperator::PGBitwiseShiftRight => None,
        _ => return ControlFlow::Break(()),
    })
}

/// `INTERVAL n UNIT`'s amount and unit (MySQL's units only).
fn interval(i: &sqlparser::ast::Interval) -> ControlFlow<(), (Expr, String)> {
    let unit = match (&i.leading_field, &i.last_field) {
        (Some(f), None)
            if i.leading_precision.is_none() && i.fractional_seconds_precision.is_none() =>
        {
            f.to_string().to_ascii_uppercase()
        }
        _ => return ControlFlow::Break(()),
    };
    if !UNITS.contains(&unit.as_str()) {
        return ControlFlow::Break(());
    }
    ControlFlow::Continue(((*i.value).clone(), unit))
}

/// `x op ANY (subquery)`, `x op ALL (subquery)`: `= ANY` is `IN`, `<> ALL` is `NOT IN`, the
/// others [`quantified_text`]'s scalar subquery.
fn quantified(
    left: &mut Box<Expr>,
    op: &BinaryOperator,
    right: &Expr,
    all: bool,
) -> ControlFlow<(), Option<Expr>> {
    let Expr::Subquery(subquery) = right else {
        return ControlFlow::Break(());
    };
    let op = match op {
        BinaryOperator::Eq => "=",
        BinaryOperator::NotEq => "<>",
        BinaryOperator::Lt => "<",
        BinaryOperator::Gt => ">",
        BinaryOperator::LtEq => "<=",
        BinaryOperator::GtEq => ">=",
        _ => return ControlFlow::Break(()),
    };
    paren(left);
    if (op == "=" && !all) || (op == "<>" && all) {
        return ControlFlow::Continue(Some(Expr::In {
            expr: left.clone(),
            target: InTarget::Subquery(subquery.clone()),
            negated: all,
            global: false,
        }));
    }
    let aggregate = {
        let mut finder = Aggregates(false);
        let _ = left.visit(&mut finder);
        finder.0
    };
    match quantified_text(&left.to_string(), op, &subquery.to_string(), all, aggregate) {
        Ok(text) => ControlFlow::Continue(Some(raw(text))),
        Err(_) => ControlFlow::Break(()),
    }
}

/// A `HAVING` in a SELECT without `GROUP BY` or any aggregate filters its rows one by one, as
/// a `WHERE` would, in MySQL; SQLite would make the query one group (one row, or an error).
/// So such a `HAVING` joins the `WHERE`.
/// MySQL reads a name in `HAVING` as the select list's alias before the tables' column of that
/// name (SQLite the other way round), unless the GROUP BY names it bare (`GROUP BY status …
/// HAVING status`: the column, with MariaDB's warning that it is ambiguous): `SELECT status DIV
/// 100 AS status … GROUP BY 1 HAVING status > 2` keeps the classes above 2. Inside an
/// aggregate's arguments and in subqueries a name stays the column: the alias's expression is
/// written in its place elsewhere.
fn having_reads_aliases(select: &mut Select) {
    let Some(having) = select.having.as_mut() else {
        return;
    };
    let grouped: Vec<String> = match &select.group_by {
        GroupByExpr::Expressions(g, _) => g
            .iter()
            .filter_map(|e| match e {
                Expr::Identifier(i) => Some(i.value.to_ascii_lowercase()),
                _ => None,
            })
            .collect(),
        GroupByExpr::All(_) => Vec::new(),
    };
    let aliases: Vec<(String, Expr)> = select
        .projection
        .iter()
        .filter_map(|item| match item {
            SelectItem::ExprWithAlias { expr, alias } => {
                Some((alias.value.to_ascii_lowercase(), expr.clone()))
            }
            _ => None,
        })
        .filter(|(name, e)| {
            !grouped.contains(name)
                && !matches!(e, Expr::Identifier(i) if i.value.eq_ignore_ascii_case(name))
        })
        .collect();
    if aliases.is_empty() {
        return;
    }
    let _ = having.visit(&mut Depths::new(true, |expr: &mut Expr, depth| {
        if let Expr::Identifier(i) = expr {
            let name = i.value.to_ascii_lowercase();
            if depth == 0 {
                if let Some((_, e)) = aliases.iter().find(|(n, _)| *n == name) {
                    *expr = Expr::Nested(Box::new(e.clone()));
                }
            }
        }
        ControlFlow::Continue(())
    }));
}

fn having_as_where(select: &mut Select) {
    if ungrouped_having(select) != Some((false, false)) {
        return;
    }
    let having = select.having.take().map(|h| Expr::Nested(Box::new(h)));
    select.selection = match (select.selection.take(), having) {
        (Some(w), Some(h)) => Some(Expr::BinaryOp {
            left: Box::new(Expr::Nested(Box::new(w))),
            op: BinaryOperator::And,
            right: Box::new(h),
        }),
        (w, h) => w.or(h),
    };
}

/// For a SELECT with a `HAVING` and no `GROUP BY`: whether its select list holds an aggregate,
/// and whether its `HAVING` does (`None` for any other SELECT).
fn ungrouped_having(select: &mut Select) -> Option<(bool, bool)> {
    if select.having.is_none()
        || !matches!(&select.group_by, GroupByExpr::Expressions(g, _) if g.is_empty())
    {
        return None;
    }
    let mut listed = Aggregates(false);
    let _ = select.projection.visit(&mut listed);
    let mut having = Aggregates(false);
    let _ = select.having.visit(&mut having);
    Some((listed.0, having.0))
}

/// A SELECT without `GROUP BY` whose aggregates are all in its `HAVING` is one group in MySQL
/// (`SELECT 1 FROM t HAVING COUNT(*) > 1`: one row or none). SQLite makes a query aggregate by
/// its select list only, and refuses such a `HAVING`; so the first select item (translated)
/// takes an aggregate that leaves its value as it is (a query of `*` alone stays refused).
fn aggregate_by_having(select: &mut Select) {
    if ungrouped_having(select) != Some((false, true)) {
        return;
    }
    let Some(item) = select.projection.iter_mut().find(|i| {
        matches!(
            i,
            SelectItem::UnnamedExpr(_) | SelectItem::ExprWithAlias { .. }
        )
    }) else {
        return;
    };
    let grouped = |e: &Expr| raw(format!("CASE WHEN COUNT(*) < 0 THEN NULL ELSE {e} END"));
    match item {
        SelectItem::ExprWithAlias { expr, .. } => *expr = grouped(expr),
        // A column (the rest are named already: `name_items`), named as SQLite named it.
        SelectItem::UnnamedExpr(e) => {
            let name = match e {
                Expr::Identifier(i) => i.value.clone(),
                Expr::CompoundIdentifier(p) => {
                    p.last().map(|i| i.value.clone()).unwrap_or_default()
                }
                _ => e.to_string(),
            };
            *item = SelectItem::ExprWithAlias {
                expr: grouped(e),
                alias: Ident::with_quote('`', name),
            };
        }
        _ => {}
    }
}

/// Whether an expression calls an aggregate (or a window function): it cannot move into a
/// subquery over the rows.
struct Aggregates(bool);

impl VisitorMut for Aggregates {
    type Break = ();

    fn pre_visit_expr(&mut self, expr: &mut Expr) -> ControlFlow<()> {
        match expr {
            Expr::Function(f) => {
                let name = f.name.to_string().to_ascii_uppercase();
                if f.over.is_some()
                    || AGGREGATES.contains(&name.as_str())
                    || name.starts_with("MYSQL_GROUP_CONCAT")
                    || super::aggregates::is_first_row_min_max(&name)
                {
                    self.0 = true;
                }
            }
            // Made calls are text: look for an aggregate's name in it.
            Expr::Identifier(i) if i.quote_style.is_none() && i.value.contains('(') => {
                let up = i.value.to_ascii_uppercase();
                if up.contains("MYSQL_GROUP_CONCAT")
                    || AGGREGATES.iter().any(|a| up.contains(&format!("{a}(")))
                {
                    self.0 = true;
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    }
}

/// `CAST(value AS type)` as [`cast_to`] writes it (the type's words and numbers).
fn cast(value: &Expr, ty: &str) -> ControlFlow<(), String> {
    let mut words = Vec::new();
    let mut args = Vec::new();
    let mut rest = ty;
    while let Some(c) = rest.chars().next() {
        let len = if c.is_ascii_alphabetic() || c == '_' {
            let len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            words.push(rest[..len].to_ascii_uppercase());
            len
        } else if c.is_ascii_digit() {
            let len = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            args.push(rest[..len].to_string());
            len
        } else {
            c.len_utf8()
        };
        rest = &rest[len..];
    }
    match cast_to(&value.to_string(), &words, &args) {
        Ok(text) => ControlFlow::Continue(text),
        Err(_) => ControlFlow::Break(()),
    }
}

/// Text made here, printed as it is: an atom (a call, a literal, or parenthesized).
fn raw(text: String) -> Expr {
    Expr::Identifier(Ident {
        value: text,
        quote_style: None,
        span: sqlparser::tokenizer::Span::empty(),
    })
}

/// `e` in parentheses unless it is an atom, which no precedence can regroup.
fn paren(e: &mut Box<Expr>) {
    let atom = matches!(
        e.as_ref(),
        Expr::Identifier(_)
            | Expr::CompoundIdentifier(_)
            | Expr::Value(_)
            | Expr::Function(_)
            | Expr::Nested(_)
            | Expr::Subquery(_)
            | Expr::Tuple(_)
            | Expr::Case { .. }
            | Expr::Cast { .. }
            | Expr::Collate { .. }
            | Expr::Exists { .. }
    );
    if !atom {
        let inner = std::mem::replace(e.as_mut(), Expr::Value(Value::Null.into()));
        **e = Expr::Nested(Box::new(inner));
    }
}

/// MySQL's `UNION`, `INTERSECT` and `EXCEPT` keep, of rows their collation finds equal (`'A'`
/// and `'a'`), the first they meet; SQLite's keep the last (their index of the rows seen
/// replaces an equal one), where its `SELECT DISTINCT` keeps the first, as MySQL does. So the
/// chain (made one SQLite reads as MySQL does: [`left_deep`]) is rebuilt from its first operand
/// on: each UNION becomes `UNION ALL`, and what a distinct UNION made so far becomes `SELECT
/// DISTINCT * FROM (…) AS mysql_union` before a `UNION ALL` follows it (unless another distinct
/// UNION comes first) and at the end; before an `INTERSECT` or `EXCEPT`, `SELECT * FROM (SELECT
/// DISTINCT * FROM (…) AS mysql_distinct) AS mysql_set`, since SQLite drops the `DISTINCT` of
/// their operand (which they make distinct anyway). `INTERSECT ALL` and `EXCEPT ALL` are
/// declined: SQLite has neither.
fn distinct_union(body: &mut SetExpr) -> ControlFlow<()> {
    left_deep(body)?;
    if !matches!(body, SetExpr::SetOperation { .. }) {
        return ControlFlow::Continue(());
    }
    // The chain taken apart: its first operand, then each operation with its right operand.
    let mut steps = Vec::new();
    let mut node = std::mem::replace(body, no_rows());
    while let SetExpr::SetOperation {
        op,
        set_quantifier,
        left,
        right,
    } = node
    {
        let distinct = match set_quantifier {
            SetQuantifier::None | SetQuantifier::Distinct => true,
            SetQuantifier::All => false,
            _ => return ControlFlow::Break(()),
        };
        steps.push((op, distinct, *right));
        node = *left;
    }
    steps.reverse();
    let mut made = node;
    let mut pending = false;
    for k in 0..steps.len() {
        let (op, distinct, right) =
            std::mem::replace(&mut steps[k], (SetOperator::Union, false, no_rows()));
        let kept = match op {
            SetOperator::Union => {
                // A distinct UNION before the next INTERSECT or EXCEPT makes this one's rows
                // distinct too.
                let later = steps[k + 1..]
                    .iter()
                    .take_while(|(op, ..)| *op == SetOperator::Union)
                    .any(|(_, d, _)| *d);
                if !distinct && pending && !later {
                    made = wrapped("SELECT DISTINCT *", "mysql_union", made)?;
                    pending = false;
                }
                pending |= distinct;
                SetQuantifier::All
            }
            SetOperator::Intersect | SetOperator::Except if distinct => {
                let first = wrapped("SELECT DISTINCT *", "mysql_distinct", made)?;
                made = wrapped("SELECT *", "mysql_set", first)?;
                pending = false;
                SetQuantifier::None
            }
            _ => return ControlFlow::Break(()),
        };
        made = SetExpr::SetOperation {
            op,
            set_quantifier: kept,
            left: Box::new(made),
            right: Box::new(right),
        };
    }
    if pending {
        made = wrapped("SELECT DISTINCT *", "mysql_union", made)?;
    }
    *body = made;
    ControlFlow::Continue(())
}

/// `HEAD FROM (inner) AS alias` ([`derived_select`]).
fn wrapped(head: &str, alias: &str, inner: SetExpr) -> ControlFlow<(), SetExpr> {
    match derived_select(head, alias, |subquery| *subquery.body = inner) {
        Some(made) => ControlFlow::Continue(made),
        None => ControlFlow::Break(()),
    }
}

/// SQLite reads a chain of `UNION`, `INTERSECT` and `EXCEPT` left to right, all of one
/// precedence; MySQL's `INTERSECT` binds tighter (`1 UNION 2 INTERSECT 2` is `1 UNION (2
/// INTERSECT 2)`, as sqlparser's tree has it). So each operand on a right side that is itself a
/// chain becomes `SELECT * FROM (…) AS mysql_set`, made distinct by its own unions first.
fn left_deep(body: &mut SetExpr) -> ControlFlow<()> {
    let mut node = body;
    while let SetExpr::SetOperation { left, right, .. } = node {
        if matches!(right.as_ref(), SetExpr::SetOperation { .. }) {
            let mut inner = std::mem::replace(right.as_mut(), no_rows());
            distinct_union(&mut inner)?;
            **right = wrapped("SELECT *", "mysql_set", inner)?;
        }
        node = left;
    }
    ControlFlow::Continue(())
}

/// A placeholder where a part of a chain is taken out to be wrapped.
fn no_rows() -> SetExpr {
    SetExpr::Values(sqlparser::ast::Values {
        explicit_row: false,
        value_keyword: false,
        rows: Vec::new(),
    })
}

/// `HEAD FROM (…) AS alias` as a tree (`HEAD`: `SELECT *` or `SELECT DISTINCT *`), `fill`
/// setting its derived table's query; `None` if sqlparser reads it otherwise.
fn derived_select(head: &str, alias: &str, fill: impl FnOnce(&mut Query)) -> Option<SetExpr> {
    let sql = format!("{head} FROM (SELECT 1) AS {alias}");
    let Some(Statement::Query(query)) = Parser::parse_sql(&MySql, &sql).ok()?.pop() else {
        return None;
    };
    let mut body = *query.body;
    let SetExpr::Select(select) = &mut body else {
        return None;
    };
    let TableFactor::Derived { subquery, .. } = &mut select.from.first_mut()?.relation else {
        return None;
    };
    fill(subquery);
    Some(body)
}

/// A query's parenthesized operands (`(SELECT …) UNION ALL (SELECT …)`, `(SELECT …)`), which
/// SQLite does not read, as it reads them: an operand without its own `ORDER BY`, `LIMIT` or
/// `WITH` is its body; one with them a derived table (`SELECT * FROM (…)`), which keeps them.
fn unparenthesize(query: &mut Query) -> ControlFlow<()> {
    fn operand(e: &mut SetExpr) -> ControlFlow<()> {
        match e {
            SetExpr::SetOperation { left, right, .. } => {
                operand(left)?;
                operand(right)
            }
            SetExpr::Query(q)
                if q.order_by.is_none() && q.limit_clause.is_none() && q.with.is_none() =>
            {
                let mut body = (*q.body).clone();
                operand(&mut body)?;
                *e = body;
                ControlFlow::Continue(())
            }
            SetExpr::Query(q) => {
                let Some(wrapper) = derived_select("SELECT *", "_pinbad_operand", |subquery| {
                    *subquery = (**q).clone()
                }) else {
                    return ControlFlow::Break(());
                };
                *e = wrapper;
                ControlFlow::Continue(())
            }
            _ => ControlFlow::Continue(()),
        }
    }
    // `(SELECT … ORDER BY … LIMIT …)` alone: that query, where the outer one adds nothing.
    if let SetExpr::Query(inner) = query.body.as_ref() {
        if query.order_by.is_none() && query.limit_clause.is_none() && query.with.is_none() {
            *query = (**inner).clone();
            return unparenthesize(query);
        }
    }
    operand(&mut query.body)
}

/// Names each unaliased item of the statement's select list (its first `SELECT` outside
/// parentheses) that is not a column as MySQL names it: by the text the client wrote, without
/// comments and with one space where there was any. `None` where the text's items and the
/// tree's do not match up.
fn name_items(sql: &str, tokens: &[TokenWithSpan], lines: &Lines, query: &mut Query) -> Option<()> {
    let mut body = query.body.as_mut();
    let select = loop {
        match body {
            SetExpr::Select(s) => break s,
            SetExpr::SetOperation { left, .. } => body = left,
            // `(SELECT …) UNION …`: SQLite names the columns by the inner text, as MySQL does.
            _ => return Some(()),
        }
    };
    let mut depth = 0i32;
    let mut start = None;
    for (k, t) in tokens.iter().enumerate() {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            Token::Word(w) if depth == 0 && w.value.eq_ignore_ascii_case("SELECT") => {
                start = Some(k + 1);
                break;
            }
            _ => {}
        }
    }
    let Some(start) = start else {
        return Some(());
    };
    name_select(sql, tokens, lines, select, start)
}

/// Names each unaliased item of `select`, whose items' text starts at `tokens[start]`, as
/// [`name_items`] does.
fn name_select(
    sql: &str,
    tokens: &[TokenWithSpan],
    lines: &Lines,
    select: &mut Select,
    start: usize,
) -> Option<()> {
    const ENDS: &[&str] = &[
        "FROM",
        "WHERE",
        "GROUP",
        "HAVING",
        "ORDER",
        "LIMIT",
        "UNION",
        "INTERSECT",
        "EXCEPT",
        "INTO",
        "WINDOW",
        "FOR",
        "LOCK",
    ];
    // Each item's written text.
    let mut items: Vec<String> = vec![String::new()];
    // Which items hold a bound parameter.
    let mut bound = vec![false];
    let mut in_parameter = false;
    let mut space = false;
    let mut depth = 0i32;
    let mut leading = true;
    let mut after_within = false;
    for (k, t) in tokens.iter().enumerate().skip(start) {
        match &t.token {
            // A parameter bound into the text (`prepared`): written `?`, whatever its value.
            Token::Whitespace(Whitespace::MultiLineComment(c))
                if Some(c.as_str()) == PARAMETER.strip_prefix("/*")?.strip_suffix("*/") =>
            {
                in_parameter = !in_parameter;
                if in_parameter {
                    let item = items.last_mut()?;
                    if space && !item.is_empty() {
                        item.push(' ');
                    }
                    item.push('?');
                    *bound.last_mut()? = true;
                    leading = false;
                    space = false;
                }
                continue;
            }
            _ if in_parameter => continue,
            Token::Whitespace(_) => {
                space = true;
                continue;
            }
            Token::LParen => depth += 1,
            Token::RParen if depth == 0 => break,
            Token::RParen => depth -= 1,
            Token::SemiColon | Token::EOF if depth == 0 => break,
            Token::Comma if depth == 0 => {
                items.push(String::new());
                bound.push(false);
                space = false;
                continue;
            }
            Token::Word(w) if depth == 0 && w.quote_style.is_none() => {
                let up = w.value.to_ascii_uppercase();
                // (`PERCENTILE_CONT(p) WITHIN GROUP (…)`'s `GROUP` ends nothing.)
                let within = std::mem::replace(&mut after_within, up == "WITHIN");
                if ENDS.contains(&up.as_str()) && !(within && up == "GROUP") {
                    break;
                }
                if leading
                    && items.len() == 1
                    && (["ALL", "DISTINCT", "DISTINCTROW"].contains(&up.as_str())
                        || DROPPED_MODIFIERS.contains(&up.as_str()))
                {
                    space = false;
                    continue;
                }
            }
            _ => {}
        }
        leading = false;
        let from = lines.offset(sql, t.span.start)?;
        let to = match tokens.get(k + 1) {
            Some(next) => lines.offset(sql, next.span.start)?,
            None => sql.len(),
        };
        let item = items.last_mut()?;
        if space && !item.is_empty() {
            item.push(' ');
        }
        item.push_str(sql.get(from..to)?);
        space = false;
    }
    if items.len() != select.projection.len() {
        return None;
    }
    for ((item, written), bound) in select.projection.iter_mut().zip(items).zip(bound) {
        let SelectItem::UnnamedExpr(expr) = item else {
            if let SelectItem::ExprWithAlias { expr, alias } = item {
                if let Some(bytes) = bit_string(expr) {
                    *item = SelectItem::ExprWithAlias {
                        expr: bytes,
                        alias: alias.clone(),
                    };
                }
            }
            continue;
        };
        // A column is named as it is written (`SELECT Status` is `Status`, where SQLite
        // would name it as its table does); `@@x` is not a column.
        let column = match expr {
            Expr::Identifier(i) if !i.value.starts_with('@') || i.quote_style.is_some() => {
                Some(i.value.clone())
            }
            Expr::CompoundIdentifier(parts)
                if !parts[0].value.starts_with('@') || parts[0].quote_style.is_some() =>
            {
                parts.last().map(|i| i.value.clone())
            }
            _ => None,
        };
        // A string literal is named by its value, as MySQL names it (a parameter's is not),
        // with or without a charset introducer or `N`.
        let name = match (column, &*expr) {
            (Some(i), _) => i,
            (None, Expr::Value(v)) if !bound => match &v.value {
                Value::SingleQuotedString(s)
                | Value::DoubleQuotedString(s)
                | Value::NationalStringLiteral(s) => s.clone(),
                _ => written,
            },
            (None, Expr::Prefixed { prefix, value }) if !bound && prefix.value.starts_with('_') => {
                match value.as_ref() {
                    Expr::Value(v) => match &v.value {
                        Value::SingleQuotedString(s) | Value::DoubleQuotedString(s) => s.clone(),
                        _ => written,
                    },
                    _ => written,
                }
            }
            _ => written,
        };
        let expr = bit_string(expr).unwrap_or_else(|| expr.clone());
        *item = SelectItem::ExprWithAlias {
            expr,
            alias: Ident::with_quote('`', in_a_name(&name)),
        };
    }
    Some(())
}

/// `name` as MySQL sends a column's name: in utf8mb3, where a character past the Basic
/// Multilingual Plane (an emoji) is `?`.
fn in_a_name(name: &str) -> String {
    name.chars()
        .map(|c| if u32::from(c) > 0xFFFF { '?' } else { c })
        .collect()
}

/// Names the items of each derived table's and common table expression's select as MySQL
/// names them (`SELECT * FROM (SELECT status DIV 100 FROM request) t` has a column
/// `status DIV 100`, not the translation's text), as [`name_items`] names the statement's own.
struct DerivedNames<'a> {
    sql: &'a str,
    tokens: &'a [TokenWithSpan],
    lines: &'a Lines,
}

impl DerivedNames<'_> {
    /// `query`'s first select named by its text, where the text and the tree match up.
    fn name(&self, query: &mut Query) {
        let mut body = query.body.as_mut();
        let select = loop {
            match body {
                SetExpr::Select(s) => break s,
                SetExpr::SetOperation { left, .. } => body = left,
                _ => return,
            }
        };
        let at = select.select_token.0.span.start;
        if let Some(k) = self.tokens.iter().position(|t| t.span.start == at) {
            let _ = name_select(self.sql, self.tokens, self.lines, select, k + 1);
        }
    }
}

impl VisitorMut for DerivedNames<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &mut Query) -> ControlFlow<()> {
        if let Some(with) = query.with.as_mut() {
            for cte in &mut with.cte_tables {
                self.name(&mut cte.query);
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, table: &mut TableFactor) -> ControlFlow<()> {
        if let TableFactor::Derived { subquery, .. } = table {
            self.name(subquery);
        }
        ControlFlow::Continue(())
    }
}

/// A select list item that is a bit-value or hexadecimal literal alone (`b'101'`, `0x41`) as
/// the binary string MySQL answers with (`X'05'`: the bits' bytes, big-endian, as few as hold
/// them).
fn bit_string(expr: &Expr) -> Option<Expr> {
    let Expr::Value(v) = expr else { return None };
    // `0x41` alone is the string `A` (`0x123` the bytes 01 23).
    if let Value::HexStringLiteral(digits) = &v.value {
        let pad = if digits.len() % 2 == 1 { "0" } else { "" };
        return Some(raw(format!("X'{pad}{digits}'")));
    }
    let Value::SingleQuotedByteStringLiteral(bits) = &v.value else {
        return None;
    };
    if bits.len() > 64 {
        return None;
    }
    let value = if bits.is_empty() {
        0
    } else {
        u64::from_str_radix(bits, 2).ok()?
    };
    let len = bits.len().div_ceil(8);
    let hex: String = value.to_be_bytes()[8 - len..]
        .iter()
        .map(|b| format!("{b:02X}"))
        .collect();
    Some(raw(format!("X'{hex}'")))
}

/// Byte offsets of sqlparser's locations (lines and columns from 1, columns in characters).
pub(super) struct Lines {
    /// Where each line starts, and whether it is ASCII (its columns are then its bytes).
    starts: Vec<(usize, bool)>,
}

impl Lines {
    pub(super) fn new(sql: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(sql.match_indices('\n').map(|(i, _)| i + 1));
        let ends = starts.iter().skip(1).copied().chain([sql.len()]);
        let starts = starts
            .iter()
            .zip(ends)
            .map(|(&s, e)| (s, sql.as_bytes()[s..e].is_ascii()))
            .collect();
        Lines { starts }
    }

    pub(super) fn offset(&self, sql: &str, at: Location) -> Option<usize> {
        let (line_start, ascii) = *self.starts.get((at.line as usize).checked_sub(1)?)?;
        let column = (at.column as usize).checked_sub(1)?;
        let line = &sql[line_start..];
        if ascii {
            return (column <= line.len()).then_some(line_start + column);
        }
        let (offset, _) = line.char_indices().nth(column)?;
        Some(line_start + offset)
    }
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
    ("CHAR_LENGTH", "char_length"),
    ("CHARACTER_LENGTH", "char_length"),
    ("OCTET_LENGTH", "length"),
    ("INSERT", "mysql_insert"),
    ("MID", "mysql_substr"),
    ("SUBSTRING", "mysql_substr"),
    ("SUBSTR", "mysql_substr"),
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
    ("CHAR", "mysql_char"),
    ("INTERVAL", "mysql_interval"),
];

/// `expr` cast to MySQL's type `ty` (its words, upper-cased, and the numbers in parentheses), as
/// SQLite text: `SIGNED` rounds as MySQL does, `DECIMAL(m,d)` rounds to `d` decimals, the
/// temporal types take MySQL's forms.
fn cast_to(expr: &str, ty: &[String], args: &[String]) -> Result<String, String> {
    let first = ty.first().map(String::as_str).unwrap_or("");
    Ok(match first {
        "SIGNED" | "INT" | "INTEGER" | "BIGINT" => format!("mysql_signed({expr})"),
        "UNSIGNED" => format!("mysql_unsigned({expr})"),
        // MySQL's default precision is 10.
        "DECIMAL" | "NUMERIC" | "DEC" | "FIXED" => format!(
            "mysql_decimal({expr}, {}, {})",
            args.get(1).map(String::as_str).unwrap_or("0"),
            args.first().map(String::as_str).unwrap_or("10")
        ),
        "DOUBLE" | "REAL" => format!("CAST({expr} AS REAL)"),
        // A 32-bit float's value (`CAST(x AS FLOAT) + 0` is the float's double).
        "FLOAT" => format!("mysql_float({expr})"),
        // `CHAR(n)`: the first `n` characters, as MySQL cuts them (with a warning).
        "CHAR" | "VARCHAR" | "NCHAR" if !args.is_empty() => {
            format!("substr(CAST({expr} AS TEXT), 1, {})", args[0])
        }
        "CHAR" | "VARCHAR" | "NCHAR" | "TEXT" | "" => format!("CAST({expr} AS TEXT)"),
        "BINARY" | "BLOB" => format!("CAST({expr} AS BLOB)"),
        "DATE" => format!("date({expr})"),
        // To the precision given (none by default), the fraction past it cut.
        "DATETIME" | "TIMESTAMP" | "TIME" => format!(
            "mysql_cast_{}({expr}, {})",
            if first == "TIME" { "time" } else { "datetime" },
            args.first()
                .and_then(|n| n.parse::<u8>().ok())
                .unwrap_or(0)
                .min(6)
        ),
        other => return Err(format!("CAST to {other} is not supported")),
    })
}

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

// Aggregate functions: a comparison's left side that calls one cannot move into the subquery
// [`quantified`] makes (it would aggregate the subquery's rows).
use super::typing::AGGREGATE_NAMES as AGGREGATES;

/// `x op ALL (subquery)` or `x op ANY (subquery)` as a scalar subquery over the subquery's rows
/// that gives MySQL's three-valued answer, which SQLite has no operator for: ALL is true when
/// no row compares false (an empty subquery included), false when one does, else NULL (a NULL
/// row or a NULL `x`); ANY is true when a row compares true, false when none can (an empty
/// subquery included), else NULL. `x` is SQLite text (an atom), `subquery` the subquery's;
/// where `x` calls an aggregate (`aggregate`) it cannot move into the subquery (it would
/// aggregate the subquery's rows), so it is compared with the rows' MIN and MAX instead.
fn quantified_text(
    x: &str,
    op: &str,
    subquery: &str,
    all: bool,
    aggregate: bool,
) -> Result<String, String> {
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
                return Err(format!(
                    "`{op} {quantifier}` of an aggregate is not supported"
                ))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(sql: &str) -> String {
        query(sql).unwrap_or_else(|e| panic!("{sql}: {e:?}")).0
    }

    /// MariaDB's percentiles are window functions over the partition's every row, a column
    /// named as written; written without `OVER`, with an ordered or named window, or with other
    /// than one ordering term, they are its syntax error; a fraction or a value not a number is
    /// its error 4104 or 4101.
    #[test]
    fn percentiles_are_window_functions_of_the_whole_partition() {
        let (sql, _) = query(
            "SELECT a, PERCENTILE_CONT(0.9) WITHIN GROUP (ORDER BY b DESC) OVER (PARTITION BY a), \
             MEDIAN(b) OVER () FROM t",
        )
        .unwrap();
        assert!(
            sql.contains(
                "mysql_percentile_cont(0.9, b, 1) OVER (PARTITION BY a ROWS BETWEEN \
                          UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"
            ),
            "{sql}"
        );
        assert!(
            sql.contains("mysql_percentile_cont(0.5, b, 0) OVER (ROWS"),
            "{sql}"
        );
        assert!(
            sql.contains(
                "AS `PERCENTILE_CONT(0.9) WITHIN GROUP (ORDER BY b DESC) OVER (PARTITION BY a)`"
            ),
            "{sql}"
        );
        let (sql, _) =
            query("SELECT PERCENTILE_DISC(0.5) WITHIN GROUP (ORDER BY a) OVER () FROM t").unwrap();
        assert!(sql.contains("mysql_percentile_disc(0.5, a, 0, "), "{sql}");
        for sql in [
            "SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY a) FROM t",
            "SELECT MEDIAN(a) FROM t",
            "SELECT PERCENTILE_CONT(0.5) OVER () FROM t",
            "SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY a) OVER (ORDER BY a) FROM t",
            "SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY a, b) OVER () FROM t",
            "SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY a) OVER w FROM t WINDOW w AS ()",
        ] {
            match query(sql) {
                Err(Refusal::Error(1064, why)) => assert!(why.contains("near"), "{sql}: {why}"),
                other => panic!("{sql}: {other:?}"),
            }
        }
        for (sql, code) in [
            (
                "SELECT PERCENTILE_CONT('0.5') WITHIN GROUP (ORDER BY 1) OVER () FROM t",
                4104,
            ),
            ("SELECT MEDIAN('x') OVER () FROM t", 4101),
        ] {
            match query(sql) {
                Err(Refusal::Error(c, _)) if c == code => {}
                other => panic!("{sql}: {other:?}"),
            }
        }
    }

    /// `LIMIT` and `OFFSET` take an unsigned integer as written or a bound parameter; anything
    /// else is MySQL's syntax error (SQLite's `LIMIT -1` would send every row).
    #[test]
    fn limits_take_integers_as_written_or_parameters() {
        for sql in [
            "SELECT a FROM t LIMIT '5'",
            "SELECT a FROM t LIMIT -1",
            "SELECT a FROM t LIMIT 1+1",
            "SELECT a FROM t LIMIT 2.5",
            "SELECT a FROM t LIMIT 1 OFFSET '1'",
            "SELECT a FROM t LIMIT 0x10, 1",
            "SELECT a FROM (SELECT a FROM t LIMIT @n) x",
        ] {
            match query(sql) {
                Err(Refusal::Error(1064, why)) => assert!(why.contains("near"), "{sql}: {why}"),
                other => panic!("{sql}: {other:?}"),
            }
        }
        for sql in [
            "SELECT a FROM t LIMIT 5",
            "SELECT a FROM t LIMIT 1, 2",
            "SELECT a FROM t LIMIT 2 OFFSET 1",
            "SELECT a FROM t LIMIT /*?*/'2'/*?*/ OFFSET /*?*/1/*?*/",
        ] {
            assert!(query(sql).is_ok(), "{sql}");
        }
    }

    /// `FLOOR`/`CEILING` of a DECIMAL of more than 18 whole digits is a DECIMAL (MariaDB's
    /// `Item_func_int_val`), so what is computed with it is exact; of fewer, an integer.
    #[test]
    fn wide_decimals_rounded_to_integers_stay_decimals() {
        for (sql, exact) in [
            ("SELECT CEILING(99999999999999999999.5) + 1", true),
            ("SELECT FLOOR(123456789012345678.5) - 1", true),
            ("SELECT CEIL(12345678901234567890.25) DIV 3", true),
            ("SELECT FLOOR(12345678901234567.5) + 1", false),
        ] {
            let t = tree(sql);
            assert_eq!(t.contains("mysql_decimal_"), exact, "{sql}: {t}");
        }
    }

    /// DECIMALs are computed by `super::decimal`'s exact functions, one rule per operator
    /// class and consumer (`decimals`); integers alone stay SQLite's.
    #[test]
    fn decimals_are_computed_exactly_by_one_rule_per_operator() {
        for (sql, want) in [
            ("SELECT 0.1 + 0.2", "SELECT mysql_decimal_op('+', 0.1, 0.2, 1, 1, 4)"),
            ("SELECT 1 / 3 * 3", "SELECT mysql_decimal_op('*', mysql_decimal_op('/', 1, 3, 0, 0, 4), 3, 4, 0, 4)"),
            ("SELECT 2.5 % 0.1", "SELECT mysql_decimal_op('%', 2.5, 0.1, 1, 1, 4)"),
            ("SELECT -(0.5)", "SELECT mysql_decimal_neg((0.5))"),
            ("SELECT 18446744073709551615 DIV 1e3", "SELECT mysql_decimal_int_div(mysql_unsigned_value((-1)), 1e3, 1)"),
            (
                "SELECT 18446744073709551615 = 18446744073709551615.0",
                "SELECT mysql_decimal_key(mysql_unsigned_value((-1)), 0) = mysql_decimal_key('18446744073709551615', 1)",
            ),
            // A DATE beside a DECIMAL compares as a DATETIME.
            ("SELECT DATE '2024-03-05' > 1.5", "SELECT mysql_datetime(date('2024-03-05')) > mysql_datetime(1.5)"),
            ("SELECT 1.5 IN (1.50, 2)", "SELECT mysql_decimal_key(1.5, 1) IN (mysql_decimal_key(1.50, 2), mysql_decimal_key(2, 0))"),
            ("SELECT 0.30000000000000001", "SELECT '0.30000000000000001'"),
            ("SELECT SUM(1.5), SUM(status) FROM request", "SELECT mysql_decimal_sum(1.5), SUM(status) FROM request"),
            // Summed in a temporary table's field of the quotient's scale (grouped by a column),
            // or kept there as DISTINCT: each value rounded to it.
            (
                "SELECT SUM(status / 7) FROM request GROUP BY hostname",
                "SELECT mysql_decimal_sum(mysql_decimal(mysql_decimal_op('/', status, 7, 0, 0, 4), 4, 65)) FROM request GROUP BY hostname",
            ),
            (
                "SELECT SUM(DISTINCT status / 7) FROM request",
                "SELECT mysql_decimal_sum(DISTINCT mysql_decimal(mysql_decimal_op('/', status, 7, 0, 0, 4), 4, 65)) FROM request",
            ),
            ("SELECT SUM(status / 7) FROM request GROUP BY 'x'", "SELECT mysql_decimal_sum(mysql_decimal_op('/', status, 7, 0, 0, 4)) FROM request GROUP BY 'x'"),
            (
                "SELECT AVG(status) FROM request",
                "SELECT mysql_decimal_op('/', mysql_decimal_sum(status), COUNT(status), 0, 0, 4) FROM request",
            ),
            // Integers and doubles are SQLite's.
            ("SELECT 1 + 2, 7 DIV 2, 1e0 / 2, 3 = 3", "SELECT 1 + 2, mysql_div(7, 2), (1e0 * 1.0) / 2, 3 = 3"),
            // A divisor that may be zero is counted there (warning 1365).
            ("SELECT 1e0 / 0, 1e0 / a", "SELECT (1e0 * 1.0) / mysql_divisor(0), (1e0 * 1.0) / mysql_divisor(a)"),
        ] {
            assert_eq!(bare(sql), want, "{sql}");
        }
    }

    /// A DECIMAL key of a select grouped (or DISTINCT) in a temporary table is rounded to its
    /// scale where it is read, as MariaDB's DECIMAL column there holds it; not a column, not
    /// where the rows are grouped by sorting (an aggregate takes DISTINCT), not ungrouped.
    #[test]
    fn decimal_keys_are_grouped_at_their_scale_where_a_temporary_table_holds_them() {
        let rounded = "mysql_decimal(mysql_decimal_op('/', 1, timer_id, 0, 0, 4), 4, 65)";
        for sql in [
            "SELECT 1 / timer_id, COUNT(*) FROM timertag GROUP BY 1",
            "SELECT DISTINCT 1 / timer_id AS q FROM timertag",
        ] {
            assert!(
                bare(sql).contains(&format!("SELECT {rounded}"))
                    || bare(sql).contains(&format!("DISTINCT {rounded}")),
                "{}",
                bare(sql)
            );
        }
        let by_expression = bare("SELECT COUNT(*) FROM timertag GROUP BY 1 / timer_id");
        assert!(
            by_expression.ends_with(&format!("GROUP BY {rounded}")),
            "{by_expression}"
        );
        for sql in [
            "SELECT 1 / timer_id, COUNT(DISTINCT tag_id) FROM timertag GROUP BY 1",
            "SELECT 1 / timer_id FROM timertag",
            "SELECT timer_id, COUNT(*) FROM timertag GROUP BY 1",
        ] {
            assert!(
                !bare(sql).contains("mysql_decimal("),
                "{sql}: {}",
                bare(sql)
            );
        }
    }

    /// A TIME moved by a day or less is moved as a TIME (MariaDB's type and value); by weeks
    /// or months, and any other operand, as a date.
    #[test]
    fn a_time_moved_by_a_day_or_less_is_moved_as_a_time() {
        for (sql, want) in [
            (
                "SELECT TIME '10:00' + INTERVAL 30 MINUTE",
                "SELECT mysql_time_add(time('10:00:00'), (30), 'MINUTE')",
            ),
            (
                "SELECT DATE_SUB(CAST(x AS TIME), INTERVAL '1:30' HOUR_MINUTE)",
                "SELECT mysql_time_add(mysql_cast_time(x, 0), -('1:30'), 'HOUR_MINUTE')",
            ),
        ] {
            assert_eq!(bare(sql), want, "{sql}");
        }
        for sql in [
            "SELECT TIME '10:00' + INTERVAL 1 WEEK",
            "SELECT '10:00' + INTERVAL 30 MINUTE",
        ] {
            assert!(
                bare(sql).contains("mysql_date_add("),
                "{sql}: {}",
                bare(sql)
            );
        }
    }

    /// `IS UNKNOWN`, national strings, charset introducers and `CHAR(n)` casts, MySQL's way.
    #[test]
    fn unknowns_introducers_and_char_casts_read_as_mysql_reads_them() {
        for (sql, want) in [
            (
                "SELECT a IS UNKNOWN, a IS NOT UNKNOWN",
                "SELECT a IS NULL, a IS NOT NULL",
            ),
            ("SELECT N'a' = _utf8mb4'b'", "SELECT 'a' = 'b'"),
            ("SELECT _binary'c'", "SELECT CAST('c' AS BLOB)"),
            (
                "SELECT CAST(a AS CHAR(2))",
                "SELECT substr(CAST(a AS TEXT), 1, 2)",
            ),
        ] {
            assert_eq!(bare(sql), want, "{sql}");
        }
    }

    /// The translation, [`bare_of`] (the first test shows what that leaves out).
    fn bare(sql: &str) -> String {
        bare_of(&tree(sql))
    }

    /// `q` without the collation every string literal gets and the names given to rewritten
    /// select list items (a test of each rewrite shows both).
    fn bare_of(q: &str) -> String {
        let mut q = q.replace(" COLLATE MYSQL", "");
        while let Some(at) = q.find(" AS `") {
            let end = at + 5 + q[at + 5..].find('`').unwrap() + 1;
            q.replace_range(at..end, "");
        }
        q
    }

    /// A SELECT that names a column outside its aggregates takes `MIN` and `MAX` as the
    /// helpers' that leave SQLite reading that column from the group's first row, each by the
    /// collation its value compares by (a key's as bytes); one that names none, and a
    /// subquery's, keep SQLite's own.
    #[test]
    fn min_and_max_beside_a_loose_column_leave_it_the_first_rows() {
        assert_eq!(
            bare("SELECT script_name, MAX(req_time), MIN(hostname) FROM request GROUP BY 1"),
            "SELECT script_name, mysql_binary_max(req_time), mysql_ci_min(hostname) \
             FROM request GROUP BY 1"
        );
        assert_eq!(
            bare("SELECT max(req_time), MIN(hostname) FROM request GROUP BY script_name"),
            "SELECT max(req_time), MIN(hostname) FROM request GROUP BY script_name"
        );
        let sql = "SELECT MAX(hostname COLLATE utf8mb4_bin), (SELECT MIN(1)) FROM request \
                   HAVING script_name > ''";
        assert!(
            tree(sql).starts_with(
                "SELECT mysql_bin_max(hostname COLLATE MYSQL_BIN) COLLATE MYSQL_BIN AS \
                 `MAX(hostname COLLATE utf8mb4_bin)`, (SELECT MIN(1)) AS"
            ),
            "{}",
            tree(sql)
        );
        for (sql, want) in [
            (
                "SELECT *, MAX(~0) FROM request",
                "mysql_unsigned_flip(mysql_binary_max(mysql_unsigned_flip(~ 0)))",
            ),
            (
                "SELECT hostname, min(CAST(req_time AS DECIMAL(10,2))) FROM request",
                "mysql_decimal_unkey(mysql_binary_min(mysql_decimal_key(",
            ),
            // (Still an aggregate where a rewrite looks for one.)
            (
                "SELECT status, MAX(timers_cnt) > ALL (SELECT 1) FROM request GROUP BY 1",
                "(CASE WHEN (WITH _pinbad_q(_pinbad_v) AS (SELECT 1) SELECT COUNT(*) FROM \
                 _pinbad_q) = 0 THEN 1 WHEN mysql_binary_max(timers_cnt) IS NULL",
            ),
        ] {
            assert!(bare(sql).contains(want), "{sql}: {}", bare(sql));
        }
    }

    /// A string's collation comes from what its value is made of: a hash, hex, a number's or
    /// a date's digits are the connection's, coercible; a count, a position or a condition
    /// gives none; a format gives its own.
    #[test]
    fn string_results_take_the_collation_of_what_they_are_made_of() {
        assert_eq!(
            bare(
                "SELECT COERCIBILITY(HEX(hostname)), COERCIBILITY(LEFT('a', hostname)), \
                 COERCIBILITY(LEFT(hostname, 1)), COERCIBILITY(CASE hostname WHEN 'a' THEN 'b' \
                 END), COERCIBILITY(IF(hostname, 'a', hostname)), COERCIBILITY(DATE_FORMAT(\
                 hostname, hostname)), COERCIBILITY(DATE_ADD(hostname, INTERVAL 1 DAY)), \
                 COERCIBILITY(CAST(status AS CHAR)) FROM request"
            ),
            "SELECT 4, 4, 2, 4, 2, 2, 4, 2 FROM request"
        );
        assert!(
            bare("SELECT GREATEST(JSON_UNQUOTE('\"x\"'), TO_BASE64(hostname)) FROM request")
                .starts_with("SELECT mysql_greatest_bin(")
        );
        // A collation's name compares as a literal, whatever the collation named.
        assert!(
            !tree("SELECT COLLATION('a' COLLATE utf8mb4_bin) = 'UTF8MB4_BIN'")
                .contains("MYSQL_BIN")
        );
    }

    /// A DOUBLE that a function reads as a count, a position or a set's bits rounds half to
    /// even; a DECIMAL is left to round half away from zero.
    #[test]
    fn doubles_read_as_integers_round_half_to_even() {
        assert_eq!(
            bare("SELECT LEFT(s, 2.5e0), SUBSTRING(s FROM 1.5e0 FOR 2), MAKE_SET(1.5, 'a'), CONV(s, 10.5e0, 2)"),
            "SELECT mysql_left(s, mysql_round_double(2.5e0, 0)), \
             mysql_substr(s, mysql_round_double(1.5e0, 0), 2), MAKE_SET(1.5, 'a'), \
             CONV(s, mysql_round_double(10.5e0, 0), 2)"
        );
    }

    #[test]
    fn comparisons_bring_their_operands_to_mysqls_type() {
        assert_eq!(
            bare("SELECT 2 = '2', COUNT(*) > '90', 2 IN ('2', 3), 'a' = 'b', 1 < 2 FROM request"),
            "SELECT 2 = mysql_double('2'), COUNT(*) > mysql_double('90'), \
             ((2 = mysql_double('2')) OR (2 = 3)), 'a' = 'b', 1 < 2 FROM request"
        );
        assert_eq!(
            bare("SELECT 1 FROM request WHERE status DIV 100 = '5' AND script_name = 'x'"),
            "SELECT 1 FROM request WHERE (mysql_div(status, 100) = mysql_double('5')) AND \
             (script_name = 'x')"
        );
        assert_eq!(
            bare("SELECT FROM_UNIXTIME(timestamp) >= '2026-11-28T16:44:00' FROM request"),
            "SELECT FROM_UNIXTIME(timestamp) >= mysql_datetime('2026-11-28T16:44:00') FROM request"
        );
        assert_eq!(
            bare("SELECT DATE(NOW()) = 20261128"),
            "SELECT mysql_datetime(DATE(NOW())) = mysql_datetime(20261128)"
        );
        assert_eq!(
            bare("SELECT BINARY script_name = '/index.php' FROM request"),
            "SELECT CAST(script_name AS BLOB) = mysql_bytes('/index.php') FROM request"
        );
        assert_eq!(
            bare("SELECT CASE status WHEN '200' THEN 1 END, 5 BETWEEN '1' AND 9 FROM request"),
            "SELECT CASE status WHEN mysql_double('200') THEN 1 END, 5 BETWEEN mysql_double('1') \
             AND 9 FROM request"
        );
        // A column whose type is not known (a report table's) is left to SQLite's affinity.
        assert_eq!(
            bare("SELECT 1 FROM report_by_script_name WHERE req_count > '90'"),
            "SELECT 1 FROM report_by_script_name WHERE req_count > '90'"
        );
    }

    #[test]
    fn a_bound_parameter_is_named_as_written() {
        let p =
            super::super::prepared::Prepared::new("SELECT ?, ? + 1, 'x' FROM request WHERE a = ?");
        let bound = p.bind(&["'170'".into(), "2".into(), "'y'".into()]);
        assert_eq!(
            tree(&bound),
            "SELECT '170' COLLATE MYSQL AS `?`, 2 + 1 AS `? + 1`, 'x' COLLATE MYSQL AS `x` \
             FROM request WHERE a = 'y' COLLATE MYSQL"
        );
    }

    /// A derived table's and a CTE's items are named by their text too, a string with an
    /// introducer by its value, an emoji as `?`.
    #[test]
    fn derived_items_are_named_as_written() {
        assert_eq!(
            tree("SELECT * FROM (SELECT a DIV 2, B FROM t) x"),
            "SELECT * FROM (SELECT mysql_div(a, 2) AS `a DIV 2`, B AS `B` FROM t) x"
        );
        assert_eq!(
            tree("WITH c AS (SELECT a DIV 2 FROM t) SELECT * FROM c"),
            "WITH c AS (SELECT mysql_div(a, 2) AS `a DIV 2` FROM t) SELECT * FROM c"
        );
        assert_eq!(
            tree("SELECT _utf8mb4'x', N'y', '😀'"),
            "SELECT 'x' COLLATE MYSQL AS `x`, 'y' COLLATE MYSQL AS `y`, '😀' COLLATE MYSQL AS `?`"
        );
    }

    #[test]
    fn value_is_a_name_in_a_functions_arguments() {
        for sql in [
            "SELECT SUM(CASE value WHEN 'GET' THEN 1 ELSE 0 END) FROM timertag",
            "SELECT CONCAT(CASE value WHEN 'x' THEN 'a' END) FROM timertag",
            "SELECT DATE_ADD(NOW(), INTERVAL value DAY) FROM timertag",
        ] {
            let t = tree(sql);
            assert!(t.contains("value"), "{sql}: {t}");
            assert!(!t.contains("VALUE"), "{sql}: read as a named argument: {t}");
        }
    }

    /// A grouped select's `ORDER BY` sorts its ties by the groups, the same on every run.
    #[test]
    fn grouped_ties_sort_by_the_groups() {
        assert_eq!(
            tree("SELECT a, COUNT(*) c FROM t GROUP BY a ORDER BY c DESC"),
            "SELECT a AS `a`, COUNT(*) AS c FROM t GROUP BY a ORDER BY c DESC, a ASC"
        );
        assert_eq!(
            tree("SELECT a, COUNT(*) FROM t GROUP BY a ORDER BY NULL"),
            "SELECT a AS `a`, COUNT(*) AS `COUNT(*)` FROM t GROUP BY a ORDER BY NULL"
        );
    }

    #[test]
    fn items_are_named_as_written_and_strings_collate_as_mysqls() {
        assert_eq!(
            tree("SELECT 7 / 2, 7/2 AS h, r.X, 'x', \"y\", 'a' 'b', @@version FROM r"),
            "SELECT mysql_decimal_op('/', 7, 2, 0, 0, 4) AS `7 / 2`, mysql_decimal_op('/', 7, 2, 0, 0, 4) AS h, r.X AS `X`, 'x' COLLATE MYSQL AS `x`, \
             'y' COLLATE MYSQL AS `y`, 'ab' COLLATE MYSQL AS `ab`, sysvar('version') COLLATE MYSQL \
             AS `@@version` FROM r"
        );
        // Comments go, and any run of spaces is one.
        assert_eq!(
            tree("select /* c */ 1 -- tail\n +   2;"),
            "SELECT 1 + 2 AS `1 + 2`"
        );
        assert_eq!(
            tree(r#"SELECT "it\"s", 'a\'b', 'x''y' # comment"#),
            "SELECT 'it\"s' COLLATE MYSQL AS `it\"s`, 'a''b' COLLATE MYSQL AS `a'b`, \
             'x''y' COLLATE MYSQL AS `x'y`"
        );
        assert_eq!(
            tree("SELECT b'101', b'100000001' AS x, b'1' + 0, 0x41 + 0, b'', b'' + 0"),
            "SELECT X'05' AS `b'101'`, X'0101' AS x, mysql_integer_arith('+', 1, 0, 1) AS `b'1' + 0`, \
             mysql_integer_arith('+', 0x41, 0, 1) AS `0x41 + 0`, X'' AS `b''`, \
             mysql_integer_arith('+', 0, 0, 1) AS `b'' + 0`"
        );
        // A hexadecimal literal alone is its bytes' string (`0x123` is 01 23).
        assert_eq!(
            tree("SELECT 0x41, 0x123 AS h"),
            "SELECT X'41' AS `0x41`, X'0123' AS h"
        );
        // `GROUP_CONCAT(… ORDER BY 1)` orders by the call's first argument.
        assert!(tree("SELECT GROUP_CONCAT(a, b ORDER BY 2 DESC) FROM t")
            .contains("ORDER BY b DESC, mysql_arrival() DESC)"));
        assert!(query("SELECT GROUP_CONCAT(a ORDER BY 3) FROM t").is_err());
        assert!(query("SELECT GROUP_CONCAT(a ORDER BY 0) FROM t").is_err());
        // A position is read as written: a constant folded to a number there is a value.
        assert!(query(
            "SELECT GROUP_CONCAT(DISTINCT COERCIBILITY(1) ORDER BY COERCIBILITY(1)) FROM t"
        )
        .is_ok());
    }

    #[test]
    fn functions_read_by_their_own_rules() {
        // MariaDB's names and the forms sqlparser does not read.
        assert_eq!(
            bare("SELECT NVL(a, 1), CHAR(65, 66), INTERVAL(5, 1, 10)"),
            "SELECT IFNULL(a, 1), mysql_char(65, 66), mysql_interval(5, 1, 10)"
        );
        assert_eq!(
            bare("SELECT EXTRACT(YEAR_MONTH FROM d), GET_FORMAT(DATE, 'EUR'), d + INTERVAL (1) DAY"),
            "SELECT mysql_extract('YEAR_MONTH', d), GET_FORMAT('DATE', 'EUR'), mysql_date_add(d, ((1)), 'DAY')"
        );
        // What the typing says of an argument, written as a literal.
        assert_eq!(
            bare("SELECT CHARSET('a'), CHARSET(1), COLLATION('a' COLLATE utf8mb4_bin), COERCIBILITY('a'), COERCIBILITY(NULL), COERCIBILITY(1)"),
            "SELECT 'utf8mb4', 'binary', 'utf8mb4_bin', 4, 6, 5"
        );
        assert_eq!(
            bare("SELECT JSON_EXTRACT(j, '$.a')"),
            "SELECT iif(json_valid(j), mysql_json_text((j) -> ('$.a')), NULL)"
        );
    }

    #[test]
    fn mysql_functions_become_ours() {
        assert_eq!(
            bare("SELECT IF(a > 1, 'y', 'n'), LEFT(s, 3), RIGHT(s,2) FROM t LEFT JOIN u ON 1"),
            "SELECT iif(a > 1, 'y', 'n'), mysql_left(s, 3), mysql_right(s, 2) FROM t LEFT JOIN u ON 1"
        );
        assert_eq!(
            bare("SELECT CAST(TRIM(CONVERT(p90, CHAR)) AS DOUBLE), CAST(x AS SIGNED)"),
            "SELECT CAST(TRIM(CAST(p90 AS TEXT)) AS REAL), mysql_signed(x)"
        );
        assert_eq!(
            bare("SELECT CAST(x AS DECIMAL(10,2)), CAST(y AS DATE), CONVERT(z, UNSIGNED)"),
            "SELECT mysql_decimal(x, 2, 10), date(y), mysql_unsigned(z)"
        );
        assert_eq!(
            bare("SELECT @@session.time_zone, DATABASE(), CURRENT_TIMESTAMP"),
            "SELECT sysvar('time_zone'), DATABASE(), now()"
        );
        assert_eq!(
            bare("SELECT SQL_CALC_FOUND_ROWS a FROM t FORCE INDEX (k) STRAIGHT_JOIN u WHERE s RLIKE '^a' FOR UPDATE"),
            "SELECT a FROM t INNER JOIN u WHERE s REGEXP '^a'"
        );
        assert_eq!(
            bare("SELECT GROUP_CONCAT(a SEPARATOR ';'), GROUP_CONCAT(DISTINCT a ORDER BY a DESC SEPARATOR '|') FROM t"),
            "SELECT mysql_group_concat(0, ';', a), mysql_group_concat(1, '|', a ORDER BY a DESC) FROM t"
        );
        // DISTINCT alone: in the order of MariaDB's tree of distinct values.
        assert_eq!(
            bare("SELECT GROUP_CONCAT(DISTINCT a, b SEPARATOR ' ') FROM t"),
            "SELECT mysql_group_concat(1, ' ', a, b ORDER BY a, b) FROM t"
        );
        // A LIMIT's count goes first among the values; anything but a count is MySQL's 1064.
        assert_eq!(
            bare("SELECT GROUP_CONCAT(DISTINCT a ORDER BY a LIMIT 2) FROM t"),
            "SELECT mysql_group_concat_limit(1, ',', 2, a ORDER BY a) FROM t"
        );
        assert!(matches!(
            query("SELECT LEAD(a, 2, 0) OVER (ORDER BY a) FROM t"),
            Err(Refusal::Error(1064, why)) if why.contains("near ' 0) OVER (ORDER BY a) FROM t'")
        ));
        for bad in ["-1", "1.5", "'2'", "1 + 1"] {
            let sql = format!("SELECT GROUP_CONCAT(a LIMIT {bad}) FROM t");
            assert!(matches!(query(&sql), Err(Refusal::Error(1064, _))), "{sql}");
        }
        assert_eq!(
            bare("SELECT TIMESTAMPDIFF(MINUTE, a, b), EXTRACT(YEAR FROM d), POSITION('a' IN s)"),
            "SELECT TIMESTAMPDIFF('MINUTE', a, b), mysql_extract('YEAR', d), locate('a', s)"
        );
        assert_eq!(
            bare("SELECT SUBSTRING(s FROM 2 FOR 3), TRIM(LEADING '0' FROM s), TRIM(s)"),
            "SELECT mysql_substr(s, 2, 3), mysql_trim('LEADING', '0', s), TRIM(s)"
        );
        assert_eq!(
            bare("SELECT COUNT(DISTINCT a, f(b, c)), COUNT(DISTINCT a), IFNULL(a, 'x'), COALESCE(a, b)"),
            "SELECT COUNT(DISTINCT mysql_tuple(a, f(b, c))), COUNT(DISTINCT a), \
             CAST(IFNULL(a, 'x') AS TEXT), COALESCE(a, b)"
        );
        // A DECIMAL written as text keeps its scale.
        assert_eq!(
            bare("SELECT CONCAT(7 / 2, '')"),
            "SELECT CONCAT(mysql_decimal_text(mysql_decimal_op('/', 7, 2, 0, 0, 4), 4), '')"
        );
    }

    /// MySQL's operators, grouped by MySQL's precedences and parenthesized for SQLite.
    #[test]
    fn mysql_operators_become_sqlite_calls() {
        assert_eq!(
            bare("SELECT status DIV 60 * 60 FROM request"),
            "SELECT mysql_div(status, 60) * 60 FROM request"
        );
        assert_eq!(
            bare("SELECT -7 % 3, 10 MOD 4"),
            "SELECT mysql_mod((-7), 3), mysql_mod(10, 4)"
        );
        assert_eq!(
            bare("SELECT x = 1 AND y XOR z + 1 FROM t"),
            "SELECT mysql_xor(((x = 1) AND y), (z + 1)) FROM t"
        );
        assert_eq!(
            bare("SELECT 3 ^ 5 + 1, !0 + 1"),
            "SELECT mysql_integer_arith('+', mysql_bitxor(3, 5), 1, 1), (NOT 0) + 1"
        );
        assert_eq!(
            bare("SELECT 1 | 2 & 3, 1 << 2 & 3"),
            "SELECT 1 | (2 & 3), mysql_shift(1, 2, 1) & 3"
        );
        assert_eq!(
            bare("SELECT a >= 400 || b > 10, a <=> b"),
            "SELECT (a >= 400) OR (b > 10), (a IS b)"
        );
        assert_eq!(
            bare("SELECT NOW() - INTERVAL 1 DAY < NOW(), INTERVAL 2 HOUR + d"),
            "SELECT mysql_date_add(NOW(), -(1), 'DAY') < NOW(), mysql_date_add(d, (2), 'HOUR')"
        );
        assert_eq!(
            bare("SELECT DATE_SUB(f(x), INTERVAL 2 * 3 HOUR), d - INTERVAL '1:30' HOUR_MINUTE"),
            "SELECT DATE_SUB(f(x), 2 * 3, 'HOUR'), mysql_date_add(d, -('1:30'), 'HOUR_MINUTE')"
        );
        assert_eq!(
            bare("SELECT 'a' = 'A' || x IN (SELECT 1) AND y = ANY (SELECT 2) AND z <> ALL (SELECT 3)"),
            "SELECT ('a' = 'A') OR (((x IN (SELECT 1)) AND (y IN (SELECT 2))) AND (z NOT IN (SELECT 3)))"
        );
        assert_eq!(
            bare("SELECT a > ALL (SELECT b FROM u) FROM t"),
            "SELECT (WITH _pinbad_q(_pinbad_v) AS (SELECT b FROM u) SELECT CASE WHEN COUNT(*) = 0 \
             THEN 1 WHEN SUM(NOT a > _pinbad_v) > 0 THEN 0 WHEN COUNT(_pinbad_v) < COUNT(*) OR a \
             IS NULL THEN NULL ELSE 1 END FROM _pinbad_q) FROM t"
        );
    }

    /// Wherever a string is read from a number, the number is written as MySQL writes it:
    /// the string functions' arguments, `LIKE`, casts, the expression forms, merged results, in
    /// every clause; a DOUBLE with its fixed decimals where it has them.
    #[test]
    fn numbers_read_as_strings_are_written_as_mysql_writes_them() {
        let cases = [
            ("SELECT RTRIM(1e0)", "SELECT RTRIM(mysql_double_text(1e0))"),
            ("SELECT RTRIM(100.00)", "SELECT RTRIM(mysql_decimal_text(100.00, 2))"),
            (
                "SELECT REPLACE(ROUND(1.5e0, 2), '5', 'x')",
                "SELECT REPLACE(mysql_fixed_double_text(ROUND(mysql_round_double(1.5e0, 2), 2), 2), '5', 'x')",
            ),
            ("SELECT CONVERT(PI(), CHAR)", "SELECT CAST(mysql_fixed_double_text(PI(), 6) AS TEXT)"),
            ("SELECT CAST(1e0 AS CHAR)", "SELECT CAST(mysql_double_text(1e0) AS TEXT)"),
            (
                "SELECT TRIM(LEADING 0.5 FROM 1e0)",
                "SELECT mysql_trim('LEADING', mysql_decimal_text(0.5, 1), mysql_double_text(1e0))",
            ),
            (
                "SELECT SUBSTRING(PI() FROM 2)",
                "SELECT mysql_substr(mysql_fixed_double_text(PI(), 6), 2)",
            ),
            (
                "SELECT a FROM t WHERE 1e0 LIKE '1'",
                "SELECT a FROM t WHERE mysql_double_text(1e0) LIKE '1'",
            ),
            ("SELECT IF(a, 1, 'x') FROM t", "SELECT iif(a, CAST(1 AS TEXT), 'x') FROM t"),
            ("SELECT LPAD(1, 2.5, 1e0)", "SELECT LPAD(1, 2.5, mysql_double_text(1e0))"),
            ("SELECT 1e0 = '1'", "SELECT 1e0 = mysql_double('1')"),
        ];
        for (mysql, sqlite) in cases {
            assert_eq!(bare(mysql), sqlite, "{mysql}");
        }
    }

    /// An unsigned integer and a DECIMAL sort by keys of their values (SQLite would put one
    /// past 2^63 first, a DECIMAL held as text last): `ORDER BY` the expression, its position
    /// or its alias; `MIN`/`MAX` of DECIMALs likewise; a signed integer is sorted as it is.
    #[test]
    fn wide_numbers_sort_by_their_values() {
        assert_eq!(
            bare("SELECT status FROM request ORDER BY CAST(status AS UNSIGNED) DESC, status / 3"),
            "SELECT status FROM request ORDER BY mysql_integer_key(CAST(status AS UNSIGNED), 1) DESC, \
             mysql_decimal_key(mysql_decimal_op('/', status, 3, 0, 0, 4), 4)"
        );
        assert_eq!(
            bare("SELECT 1.5 AS x, ~0 FROM t ORDER BY x, 2, 1e0"),
            "SELECT 1.5 AS x, ~ 0 FROM t ORDER BY mysql_decimal_key(1.5, 1), \
             mysql_integer_key(~ 0, 1), 1e0"
        );
        assert_eq!(
            bare("SELECT MAX(1.5), MIN(2) FROM t"),
            "SELECT mysql_decimal_unkey(MAX(mysql_decimal_key(1.5, 1))), MIN(2) FROM t"
        );
    }

    /// Sums and signed arithmetic past 64 bits: a sum of integers is exact (a DECIMAL past
    /// 2^63) where its operand may be 64 bits wide, SQLite's where it is 32 bits wide;
    /// `+ - *` of operands wide enough to pass 2^63 err as MySQL's; `-(~0)` is a DECIMAL.
    #[test]
    fn wide_integers_are_summed_and_computed_exactly() {
        assert_eq!(
            bare("SELECT SUM(status), SUM(id), SUM(9223372036854775807) FROM request"),
            "SELECT SUM(status), mysql_decimal_sum(id), mysql_decimal_sum(9223372036854775807) \
             FROM request"
        );
        assert_eq!(
            bare("SELECT status * 1000, id + 1, timestamp - 60 FROM request"),
            "SELECT status * 1000, mysql_signed_arith('+', id, 1), timestamp - 60 FROM request"
        );
        assert_eq!(
            bare("SELECT -(~0)"),
            "SELECT mysql_decimal_neg(mysql_unsigned_value((~ 0)))"
        );
        // The absolute value of a DECIMAL past a double's digits is exact too.
        assert_eq!(
            bare("SELECT ABS(-(~0)), ABS(1)"),
            "SELECT mysql_decimal_abs(mysql_decimal_neg(mysql_unsigned_value((~ 0)))), ABS(1)"
        );
    }

    /// Rules of the generator's seeds 20261216 to 20261223: `x IS NULL` of what cannot be NULL
    /// is 0 unevaluated; -2^63 negated twice or more is a DECIMAL of its digits whatever the
    /// nesting; `-x` of a DOUBLE keeps a zero's sign; a whole temporal beside a BIGINT UNSIGNED
    /// is its number, computed exactly; an integer merged into a string is written as one.
    #[test]
    fn rules_found_by_the_generator_in_december() {
        assert_eq!(bare("SELECT (COT(0) IS NOT NULL) IS NULL"), "SELECT 0");
        assert!(bare("SELECT COT(a) IS NULL").contains("IS NULL"));
        for (sql, digits) in [
            ("SELECT -(-9223372036854775808)", "'9223372036854775808'"),
            (
                "SELECT -(-(-9223372036854775808))",
                "'-9223372036854775808'",
            ),
            (
                "SELECT -(-(-(-9223372036854775808)))",
                "'9223372036854775808'",
            ),
        ] {
            assert_eq!(bare(sql), format!("SELECT {digits}"), "{sql}");
        }
        assert_eq!(
            bare("SELECT -9223372036854775808"),
            "SELECT (-9223372036854775807 - 1)"
        );
        assert!(bare("SELECT -1e0").contains("* -1.0"));
        assert!(bare("SELECT -''").contains("CAST('' AS REAL) * -1.0"));
        let moded = bare("SELECT MOD(18446744073709551615, TIME '23:59:59')");
        assert!(
            moded.contains("mysql_integer_arith('%'") && moded.contains("mysql_temporal_number"),
            "{moded}"
        );
        let merged = bare("SELECT IF(a > 1, 'x', CAST(a AS UNSIGNED)) FROM t");
        assert!(merged.contains("AS TEXT)"), "{merged}");
    }

    /// Two explicit collations meeting are MariaDB's 1267 (1270, 1271 for more operands); a
    /// collation not of its operand's character set (`utf8mb3_` of a literal, utf8mb4) 1253.
    #[test]
    fn collations_that_cannot_meet_are_mariadb_errors() {
        let error = |sql: &str| match query(sql) {
            Err(Refusal::Error(code, _)) => Some(code),
            _ => None,
        };
        assert_eq!(
            error("SELECT ('a' COLLATE utf8mb4_bin) = ('a' COLLATE utf8mb4_general_ci)"),
            Some(1267)
        );
        assert_eq!(
            error("SELECT CONCAT('a' COLLATE utf8mb4_bin, 'b' COLLATE utf8mb4_unicode_ci)"),
            Some(1267)
        );
        assert_eq!(error("SELECT 'a' COLLATE utf8mb3_general_ci"), Some(1253));
        assert_eq!(error("SELECT ('a' COLLATE utf8mb4_bin) = 'a'"), None);
        assert_eq!(error("SELECT 1 COLLATE utf8mb4_bin"), None);
    }

    /// MySQL keeps the first of the rows a DISTINCT union finds equal: the part up to the last
    /// distinct UNION is wrapped, at every level.
    /// A BIGINT UNSIGNED is its 64 bits in SQLite: what reads the bits is made ours, anything
    /// else reads its value (`typing::unsigned_reads`).
    /// `SUM`/`AVG` of doubles are MariaDB's plain additions; `GREATEST`/`LEAST` among TIMEs
    /// read a string as a TIME or NULL (where `=` reads what is none as 00:00:00); `MAKE_SET`
    /// reads an unsigned's 64 bits.
    #[test]
    fn double_sums_time_extremes_and_set_bits_read_as_mariadb_reads_them() {
        let sql = bare("SELECT SUM(1e0), AVG(DISTINCT 2.5e0), SUM(1.5)");
        assert!(
            sql.contains("mysql_double_sum(1e0)")
                && sql.contains("mysql_double_avg(DISTINCT 2.5e0)")
                && sql.contains("mysql_decimal_sum(1.5)"),
            "{sql}"
        );
        let sql = bare("SELECT GREATEST(TIME '12:34:56', ''), TIME '12:34:56' = ''");
        assert!(
            sql.contains("time('')") && sql.contains("mysql_time_key('')"),
            "{sql}"
        );
        let sql = bare("SELECT MAKE_SET(~1, 'a')");
        assert!(!sql.contains("mysql_unsigned_value"), "{sql}");
    }

    #[test]
    fn unsigned_integers_are_read_by_one_rule_per_consumer() {
        assert_eq!(
            bare("SELECT 18446744073709551615 + 1, 9223372036854775807 + 1"),
            "SELECT mysql_integer_arith('+', (-1), 1, 1), mysql_signed_arith('+', 9223372036854775807, 1)"
        );
        assert_eq!(
            bare("SELECT 1 - CAST(2 AS UNSIGNED), 7 % CAST(2 AS UNSIGNED)"),
            "SELECT mysql_integer_arith('-', 1, mysql_unsigned(2), 2), mysql_integer_arith('%', 7, mysql_unsigned(2), 2)"
        );
        assert_eq!(
            bare("SELECT ~0 > 5, ~0 > 1e0, ~1 IN (1, 2)"),
            "SELECT mysql_integer_key(~ 0, 1) > mysql_integer_key(5, 0), \
             mysql_double(mysql_unsigned_value(~ 0)) > 1e0, \
             mysql_integer_key(~ 1, 1) IN (mysql_integer_key(1, 0), mysql_integer_key(2, 0))"
        );
        assert_eq!(
            bare("SELECT (~0) >> 1, 2.5e0 | 1, CAST(~0 AS SIGNED), -9223372036854775808"),
            "SELECT mysql_shift((~ 0), 1, 0), mysql_bits(2.5e0) | 1, mysql_signed(~ 0), \
             (-9223372036854775807 - 1)"
        );
        assert_eq!(
            bare("SELECT MAX(~0), FLOOR(~0), SUM(~0), CONCAT(~0), BIT_OR(1) + 1e0"),
            "SELECT mysql_unsigned_flip(MAX(mysql_unsigned_flip(~ 0))), (~ 0), \
             mysql_decimal_sum(mysql_unsigned_value(~ 0)), CONCAT(mysql_unsigned_value(~ 0)), BIT_OR(1) + 1e0"
        );
        // Read as a temporal, a number (its digits would be a string's, no TIME).
        assert_eq!(
            bare("SELECT HOUR(~0), CAST(~0 AS TIME), DATE_FORMAT(~0, ~0)"),
            "SELECT HOUR(mysql_double(mysql_unsigned_value(~ 0))), \
             mysql_cast_time(mysql_double(mysql_unsigned_value(~ 0)), 0), \
             DATE_FORMAT(mysql_double(mysql_unsigned_value(~ 0)), mysql_unsigned_value(~ 0))"
        );
        assert_eq!(
            bare("SELECT BIT_OR(2.5e0), BIT_OR(a) FROM t"),
            "SELECT BIT_OR(mysql_round_double(2.5e0, 0)), BIT_OR(a) FROM t"
        );
        // `NULLIF` keeps its first operand's bits and compares the exact values.
        assert_eq!(
            bare("SELECT NULLIF(~0, -1)"),
            "SELECT (CASE WHEN mysql_integer_key(~ 0, 1) = mysql_integer_key(-1, 0) THEN NULL \
             ELSE ~ 0 END)"
        );
    }

    #[test]
    fn distinct_unions_are_wrapped() {
        assert_eq!(
            bare("SELECT a FROM t UNION SELECT b FROM u UNION ALL SELECT c FROM v ORDER BY 1"),
            "SELECT DISTINCT * FROM (SELECT a FROM t UNION ALL SELECT b FROM u) AS mysql_union \
             UNION ALL SELECT c FROM v ORDER BY 1"
        );
        assert_eq!(
            bare("SELECT * FROM (SELECT 1 UNION ALL SELECT 2 UNION SELECT 3) AS d"),
            "SELECT * FROM (SELECT DISTINCT * FROM (SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3) \
             AS mysql_union) AS d"
        );
        // INTERSECT binds tighter than UNION and EXCEPT, as MySQL reads it; SQLite reads a
        // chain left to right, so a chain on a right side is a table of its own. The first
        // operand of an INTERSECT or EXCEPT is made distinct first (SQLite's keep the last of
        // equal rows, and drop a DISTINCT there).
        let first = |x: &str| {
            format!("SELECT * FROM (SELECT DISTINCT * FROM ({x}) AS mysql_distinct) AS mysql_set")
        };
        assert_eq!(
            bare("SELECT a FROM t UNION SELECT b FROM u INTERSECT SELECT c FROM v"),
            format!(
                "SELECT DISTINCT * FROM (SELECT a FROM t UNION ALL SELECT * FROM ({} INTERSECT \
                 SELECT c FROM v) AS mysql_set) AS mysql_union",
                first("SELECT b FROM u")
            )
        );
        assert_eq!(
            bare("SELECT a FROM t EXCEPT SELECT b FROM u UNION SELECT c FROM v"),
            format!(
                "SELECT DISTINCT * FROM ({} EXCEPT SELECT b FROM u UNION ALL SELECT c FROM v) \
                 AS mysql_union",
                first("SELECT a FROM t")
            )
        );
        assert_eq!(
            bare("SELECT a FROM t UNION SELECT b FROM u EXCEPT SELECT c FROM v UNION ALL SELECT d FROM w"),
            format!(
                "{} EXCEPT SELECT c FROM v UNION ALL SELECT d FROM w",
                first("SELECT a FROM t UNION ALL SELECT b FROM u")
            )
        );
        assert_eq!(
            bare("SELECT a FROM t INTERSECT SELECT b FROM u ORDER BY 1"),
            format!(
                "{} INTERSECT SELECT b FROM u ORDER BY 1",
                first("SELECT a FROM t")
            )
        );
        // A recursive common table expression's body stays a compound.
        let recursive = "WITH RECURSIVE c(n) AS (SELECT 1 UNION SELECT n + 1 FROM c WHERE n < 3) SELECT n FROM c";
        assert!(
            bare(recursive).contains("SELECT 1 UNION SELECT n + 1"),
            "{}",
            bare(recursive)
        );
    }

    /// `WITH ROLLUP` is a UNION ALL of one grouped query per level (`statement`'s tests run
    /// it against MariaDB's answers); the shapes MariaDB refuses, or it does not take, refused.
    #[test]
    fn an_aggregate_in_having_alone_makes_the_query_one_group() {
        for (sql, want) in [
            (
                "SELECT 1 FROM t HAVING COUNT(*) > 1",
                "SELECT CASE WHEN COUNT(*) < 0 THEN NULL ELSE 1 END FROM t HAVING COUNT(*) > 1",
            ),
            // No aggregate: the HAVING filters rows, as a WHERE.
            (
                "SELECT a FROM t HAVING a > 1",
                "SELECT a FROM t WHERE (a > 1)",
            ),
            // An aggregate listed: SQLite groups already.
            (
                "SELECT SUM(a) FROM t HAVING COUNT(*) > 1",
                "SELECT SUM(a) FROM t HAVING COUNT(*) > 1",
            ),
            // A column keeps its name.
            (
                "SELECT t.a FROM t HAVING COUNT(*) > 1",
                "SELECT CASE WHEN COUNT(*) < 0 THEN NULL ELSE t.a END FROM t HAVING COUNT(*) > 1",
            ),
        ] {
            assert_eq!(bare(sql), want, "{sql}");
        }
    }

    #[test]
    fn rollups_are_a_union_of_levels() {
        // (`HAVING c` reads the alias: its expression, `having_reads_aliases`.)
        assert_eq!(
            bare("SELECT a, COUNT(*) AS c FROM t GROUP BY a WITH ROLLUP HAVING c > 1 LIMIT 3"),
            "SELECT _pinbad_c0, _pinbad_c1 FROM (SELECT a AS _pinbad_c0, COUNT(*) AS _pinbad_c1, \
             0 AS _pinbad_r0, a AS _pinbad_g0 FROM t GROUP BY a HAVING ((COUNT(*)) > 1) UNION ALL \
             SELECT NULL AS _pinbad_c0, COUNT(*) AS _pinbad_c1, 1 AS _pinbad_r0, NULL AS _pinbad_g0 \
             FROM t HAVING ((COUNT(*)) > 1) AND (COUNT(*) > 0)) AS _pinbad_rollup ORDER BY \
             _pinbad_r0, _pinbad_g0 LIMIT 3"
        );
        // The client's names: a column's, unquoted, or the text written.
        assert!(
            tree("SELECT `a`, COUNT( * ) FROM t GROUP BY a WITH ROLLUP")
                .starts_with("SELECT _pinbad_c0 AS `a`, _pinbad_c1 AS `COUNT( * )` FROM"),
            "{}",
            tree("SELECT `a`, COUNT( * ) FROM t GROUP BY a WITH ROLLUP")
        );
        for (sql, why) in [
            (
                "SELECT a, COUNT(*) FROM t GROUP BY a WITH ROLLUP ORDER BY a",
                "ORDER BY",
            ),
            (
                "SELECT a, b FROM t GROUP BY a WITH ROLLUP",
                "`b` is neither",
            ),
            ("SELECT * FROM t GROUP BY a WITH ROLLUP", "`*`"),
            (
                "SELECT 1 UNION SELECT a FROM t GROUP BY a WITH ROLLUP",
                "UNION",
            ),
            (
                "SELECT (SELECT a FROM t GROUP BY a WITH ROLLUP LIMIT 1)",
                "own GROUP BY",
            ),
        ] {
            match query(sql) {
                Err(Refusal::Unsupported(refused)) => {
                    assert!(refused.contains(why), "{sql}: {refused}")
                }
                other => panic!("{sql}: {other:?}"),
            }
        }
    }

    /// The session's variables change the translation as MySQL's meaning does; with their
    /// defaults nothing changes.
    #[test]
    fn session_variables_change_the_translation() {
        let with = |sql: &str, context: &Context| query_in(sql, context).unwrap().0;
        let pipes = Context {
            pipes_as_concat: true,
            ..Context::default()
        };
        assert!(with("SELECT 'a' || 'b'", &pipes)
            .to_lowercase()
            .contains("concat("));
        assert!(!with("SELECT 'a' || 'b'", &Context::default())
            .to_lowercase()
            .contains("concat("));
        let limited = Context {
            select_limit: Some(2),
            ..Context::default()
        };
        assert!(
            with("SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3", &limited).ends_with("LIMIT 2")
        );
        assert!(with("SELECT 1 LIMIT 3", &limited).ends_with("LIMIT 3"));
        let week = Context {
            week_format: 3,
            ..Context::default()
        };
        assert!(with("SELECT WEEK('2024-01-07')", &week).contains(", 3)"));
        let binary = Context {
            literals: Collation::Bin,
            ..Context::default()
        };
        let t = with("SELECT 'a' = 'A', a = 'A' FROM t", &binary);
        assert_eq!(t.matches(super::super::collation::BIN).count(), 2, "{t}");
        assert!(
            t.contains(&format!("'A' COLLATE {}", super::super::collation::NAME)),
            "{t}"
        );
    }

    /// What tools send at connect, and user variables, translate to what SQLite reads.
    #[test]
    fn connect_time_shapes_are_read() {
        assert!(!tree("SELECT 1 FROM DUAL").to_uppercase().contains("DUAL"));
        assert!(tree("SELECT 1 LIMIT 1, 18446744073709551615").ends_with("LIMIT 1, -1"));
        assert!(!tree("(SELECT 1) UNION ALL (SELECT 2)").contains('('));
        let t = tree("(SELECT 1 ORDER BY 1 LIMIT 1) UNION ALL (SELECT 3)");
        assert!(
            t.contains("SELECT * FROM (SELECT 1 ORDER BY 1 LIMIT 1)"),
            "{t}"
        );
        assert!(tree("(SELECT 5)").starts_with("SELECT 5"));
        assert!(tree("SELECT @A + 1").contains("uservar('a')"));
        assert!(tree("SELECT @a := 1").contains("setuservar('a', 1)"));
        assert!(tree("SELECT 'a' COLLATE utf8mb4_bin").contains(super::super::collation::BIN));
        unsupported_collation();
    }

    /// An index hint naming an index is MariaDB's 1176 on a table pinbad has (none has an
    /// index): the first hinted table's last name, under the statement's name for the table.
    /// An unknown table is left to its own error; `USE INDEX ()` names none.
    #[test]
    fn index_hints_naming_an_index_are_error_1176() {
        let error = |sql: &str| match query(sql) {
            Err(Refusal::Error(code, why)) => Some((code, why)),
            _ => None,
        };
        assert_eq!(
            error("SELECT 1 FROM request r FORCE INDEX (PRIMARY) JOIN timer USE KEY (j)"),
            Some((1176, "Key 'PRIMARY' doesn't exist in table 'r'".into()))
        );
        assert_eq!(
            error("SELECT 1 FROM request IGNORE INDEX FOR ORDER BY (a, b)"),
            Some((1176, "Key 'b' doesn't exist in table 'request'".into()))
        );
        assert_eq!(
            error("SELECT (SELECT 1 FROM timer USE INDEX (t) LIMIT 1)"),
            Some((1176, "Key 't' doesn't exist in table 'timer'".into()))
        );
        assert!(query("SELECT 1 FROM request USE INDEX ()").is_ok());
        assert!(error("SELECT 1 FROM nosuch FORCE INDEX (k)").is_none());
    }

    fn unsupported_collation() {
        let refused = query("SELECT 'a' COLLATE utf8mb4_unicode_520_ci").unwrap_err();
        assert!(
            matches!(&refused, Refusal::Error(1235, why) if why.contains("utf8mb4_unicode_520_ci")),
            "{refused:?}"
        );
        assert!(matches!(
            query("SELECT 'a' COLLATE utf8mb4_0900_ai_ci").unwrap_err(),
            Refusal::Error(1273, _)
        ));
        assert!(tree("SELECT 'a' COLLATE utf8mb4_unicode_ci").contains("MYSQL_UCA"));
        let t = bare("SELECT STRCMP('a' COLLATE utf8mb4_bin, 'A')");
        assert!(t.contains("mysql_strcmp_bin("), "{t}");
        assert!(
            bare("SELECT POSITION('a' COLLATE utf8mb4_unicode_ci IN 'A')")
                .contains("mysql_locate_uca(")
        );
    }

    /// Nested `ANY`/`ALL` comparisons repeat their operands: refused before their text grows
    /// without bound.
    #[test]
    fn nested_quantified_comparisons_are_bounded() {
        let mut sql = "SELECT 1".to_string();
        for _ in 0..14 {
            sql = format!("SELECT COUNT(*) > ALL ({sql})");
        }
        let refused = query(&sql).unwrap_err();
        assert!(
            matches!(&refused, Refusal::Unsupported(why) if why.contains("nest too deep")),
            "{refused:?}"
        );
        // Three deep is fine.
        assert!(
            query("SELECT 1 > ALL (SELECT COUNT(*) > ALL (SELECT COUNT(*) > ANY (SELECT 2)))")
                .is_ok()
        );
    }

    /// What it has no rule for is refused, named as the client wrote it; what sqlparser
    /// cannot parse is a syntax error.
    #[test]
    fn refuses_what_it_has_no_rule_for_saying_what() {
        let unsupported = |sql: &str, what: &str| match query(sql) {
            Err(Refusal::Unsupported(why)) => assert!(why.contains(what), "{sql}: {why}"),
            other => panic!("{sql}: {other:?}"),
        };
        unsupported(
            "SELECT a, MATCH (a) AGAINST ('x') FROM t",
            "`MATCH (a) AGAINST ('x')` is not supported",
        );
        unsupported("SELECT 1 INTO t", "SELECT … INTO: not supported");
        unsupported(
            "SELECT CAST(a AS JSON) FROM t",
            "`CAST(a AS JSON)` is not supported",
        );
        unsupported(
            "SELECT a FROM t GROUP BY a WITH CUBE",
            "WITH CUBE and GROUPING SETS: not supported",
        );
        unsupported(
            "SELECT 1 INTERSECT ALL SELECT 1",
            "INTERSECT ALL or EXCEPT ALL: not supported",
        );
        unsupported("SHOW TABLES", "only queries");
        unsupported("SELECT 1; SELECT 2", "one statement at a time");
        let long = format!("SELECT MATCH (a) AGAINST ('{}')", "x".repeat(80));
        let shown = format!("`MATCH (a) AGAINST ('{}…` is not supported", "x".repeat(40));
        unsupported(&long, &shown);
        for sql in ["SELECT (", "SELECT a FROM t GROUP BY"] {
            assert!(matches!(query(sql), Err(Refusal::Syntax(_))), "{sql}");
        }
    }

    /// What MySQL reads and sqlparser does not is taken out before it parses: ODBC's `{oj …}`,
    /// `LOCK IN SHARE MODE`, and `GROUP BY x DESC`, whose groups come sorted so where no ORDER
    /// BY says otherwise (under a rollup, by the rollup's own order).
    #[test]
    fn mysql_clauses_sqlparser_does_not_read() {
        assert_eq!(
            bare("SELECT r.a FROM {oj r LEFT OUTER JOIN t ON t.b = r.a} LOCK IN SHARE MODE"),
            bare("SELECT r.a FROM r LEFT OUTER JOIN t ON t.b = r.a")
        );
        assert_eq!(
            bare("SELECT a, COUNT(*) FROM t GROUP BY a DESC, b"),
            bare("SELECT a, COUNT(*) FROM t GROUP BY a, b ORDER BY a DESC, b ASC")
        );
        assert_eq!(
            bare("SELECT a FROM t GROUP BY a ASC ORDER BY 1 DESC"),
            bare("SELECT a FROM t GROUP BY a ORDER BY 1 DESC")
        );
        // A subquery's GROUP BY is its own; a window's ORDER BY is left as it is.
        assert_eq!(
            bare("SELECT x FROM (SELECT a AS x FROM t GROUP BY a DESC) d GROUP BY x"),
            bare("SELECT x FROM (SELECT a AS x FROM t GROUP BY a ORDER BY a DESC) d GROUP BY x")
        );
        assert!(
            tree("SELECT a, COUNT(*) FROM t GROUP BY a DESC WITH ROLLUP")
                .contains("_pinbad_g0 DESC")
        );
        // One direction an item, as MariaDB's grammar: a second is a syntax error.
        assert!(matches!(
            query("SELECT a FROM t GROUP BY a DESC DESC"),
            Err(Refusal::Syntax(_))
        ));
        assert!(matches!(
            query("SELECT a FROM t GROUP BY a ASC DESC, b"),
            Err(Refusal::Syntax(_))
        ));
    }

    /// `SELECT … INTO @a, @b` is its query, the `INTO` blanked, and the variables' names.
    #[test]
    fn select_into_is_a_query_and_its_variables() {
        let into = |sql: &str| {
            select_into(sql).map(|(q, names)| {
                assert_eq!(q.chars().count(), sql.chars().count(), "{sql}");
                (q.split_whitespace().collect::<Vec<_>>().join(" "), names)
            })
        };
        assert_eq!(
            into("SELECT a, b INTO @x, @Y FROM t"),
            Some((
                "SELECT a, b FROM t".to_string(),
                vec!["x".into(), "y".into()]
            ))
        );
        assert_eq!(
            into("SELECT a FROM t LIMIT 1 INTO @x"),
            Some(("SELECT a FROM t LIMIT 1".to_string(), vec!["x".into()]))
        );
        assert_eq!(into("SELECT a FROM (SELECT 1 INTO @x) t"), None);
        assert_eq!(into("SELECT a INTO OUTFILE '/x' FROM t"), None);
        assert_eq!(into("SELECT 'INTO @x'"), None);
    }

    /// `SQL_CALC_FOUND_ROWS … LIMIT`'s count is the query without its LIMIT, counted.
    #[test]
    fn found_rows_counts_the_query_without_its_limit() {
        let count = |sql: &str| found_rows_query(sql, &Context::default());
        let counted = count("SELECT SQL_CALC_FOUND_ROWS a FROM t ORDER BY a LIMIT 3").unwrap();
        assert!(
            counted.starts_with("SELECT COUNT(*) FROM (SELECT"),
            "{counted}"
        );
        assert!(!counted.contains("LIMIT"), "{counted}");
        assert_eq!(count("SELECT SQL_CALC_FOUND_ROWS a FROM t"), None);
        assert_eq!(count("SELECT a FROM t LIMIT 3"), None);
        assert!(
            count("SELECT SQL_CALC_FOUND_ROWS a FROM t UNION SELECT b FROM u LIMIT 1").is_some()
        );
    }

    /// `TIMESTAMP(x)` is `x` cast to a DATETIME of MariaDB's fraction digits, `TIMESTAMP(x,
    /// t)` that moved by `t`.
    #[test]
    fn timestamp_function_is_a_cast() {
        assert_eq!(
            bare("SELECT TIMESTAMP('2024-01-01 10:00:00.5')"),
            bare("SELECT CAST('2024-01-01 10:00:00.5' AS DATETIME(1))")
        );
        assert_eq!(
            bare("SELECT TIMESTAMP('2024-01-01', '01:30:00.25')"),
            bare("SELECT ADDTIME(CAST('2024-01-01' AS DATETIME(2)), '01:30:00.25')")
        );
        assert_eq!(
            bare("SELECT TIMESTAMP(a), TIMESTAMP('x'), TIMESTAMP(CONCAT(a, ''))"),
            bare("SELECT CAST(a AS DATETIME(0)), CAST('x' AS DATETIME(6)), CAST(CONCAT(a, '') AS DATETIME(6))")
        );
    }

    /// `TRIM(LEADING FROM s)` trims spaces from that side (the dialect parses it).
    #[test]
    fn trim_with_a_side_alone() {
        assert_eq!(
            bare("SELECT TRIM(LEADING FROM s), TRIM(TRAILING FROM s)"),
            "SELECT mysql_trim('LEADING', ' ', s), mysql_trim('TRAILING', ' ', s)"
        );
    }

    /// A `WHERE` knows no select list alias (error 1054), where the name is no column; a
    /// `HAVING` does, and a subquery's own names are its own.
    #[test]
    fn where_knows_no_alias() {
        match query("SELECT status AS s FROM request WHERE s = 200") {
            Err(Refusal::Error(1054, why)) => assert_eq!(why, "Unknown column 's' in 'WHERE'"),
            other => panic!("{other:?}"),
        }
        for fine in [
            "SELECT status AS status FROM request WHERE status = 200",
            "SELECT status AS s FROM request GROUP BY s HAVING s = 200",
            "SELECT status AS s FROM request WHERE status IN (SELECT 200 AS s FROM request WHERE s = 1)",
        ] {
            assert!(query(fine).is_ok(), "{fine}");
        }
    }

    /// `ROW(a, b)` is a row; `LIKE` under utf8mb4_bin is `mysql_like_bin`.
    #[test]
    fn rows_and_binary_likes() {
        assert_eq!(
            bare("SELECT ROW(1, 2) = ROW(1, 2)"),
            "SELECT (1, 2) = (1, 2)"
        );
        let t = bare("SELECT 'a' COLLATE utf8mb4_bin NOT LIKE 'A%' ESCAPE '!'");
        assert!(t.contains("(NOT mysql_like_bin("), "{t}");
        assert!(!bare("SELECT 'a' LIKE 'A%'").contains("mysql_like_bin"));
    }

    /// What SQLite has and MySQL has not is refused as MySQL refuses it: SQLite's functions
    /// and the translation's helpers, its schema's tables, table-valued functions.
    #[test]
    fn sqlite_s_own_is_refused_as_mysql_refuses_it() {
        for (sql, code, words) in [
            (
                "SELECT typeof(1)",
                1305,
                "FUNCTION pinba.typeof does not exist",
            ),
            (
                "SELECT 1 FROM t WHERE a > TOTAL(b)",
                1305,
                "FUNCTION pinba.TOTAL does not exist",
            ),
            (
                "SELECT mysql_decimal(1, 1, 2)",
                1305,
                "FUNCTION pinba.mysql_decimal does not exist",
            ),
            ("SELECT datetime('now')", 1064, "datetime is a keyword"),
            (
                "SELECT * FROM sqlite_master",
                1146,
                "Table 'pinba.sqlite_master' doesn't exist",
            ),
            (
                "SELECT * FROM main.sqlite_schema",
                1146,
                "Table 'main.sqlite_schema' doesn't exist",
            ),
            (
                "SELECT name FROM pragma_function_list",
                1146,
                "'pinba.pragma_function_list'",
            ),
            (
                "SELECT * FROM json_each('[1]')",
                1064,
                "json_each(…) is not a table",
            ),
        ] {
            match query(sql) {
                Err(Refusal::Error(c, why)) => {
                    assert_eq!(c, code, "{sql}");
                    assert!(why.contains(words), "{sql}: {why}");
                }
                other => panic!("{sql}: {other:?}"),
            }
        }
        assert!(query("SELECT ATAN(1, 2), SIN(x) FROM t").is_ok());
    }

    /// A chain of operators is a level of the tree each: the longest taken is translated on a
    /// worker's stack (2 MB) without overflowing it, one operator more is refused.
    #[test]
    fn long_operator_chains_are_bounded() {
        let chain = |n: usize| format!("SELECT 1{}", " + 1".repeat(n));
        let translated = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                let mut sums = 0;
                for sql in [chain(MAX_OPERATORS - 1), chain(SHALLOW_OPERATORS - 1)] {
                    let (text, _) = query(&sql).unwrap();
                    sums += text.matches('+').count();
                }
                let or = format!("SELECT a FROM t WHERE a = 0{}", " OR a = 1".repeat(4000));
                let union = format!("SELECT 1{}", " UNION SELECT 1".repeat(4000));
                assert!(query(&or).is_ok() && query(&union).is_ok());
                sums
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(
            translated,
            2 * (MAX_OPERATORS - 1) + 2 * (SHALLOW_OPERATORS - 1)
        );
        match query(&chain(MAX_OPERATORS + 1)) {
            Err(Refusal::Unsupported(why)) => assert!(why.contains("operators"), "{why}"),
            other => panic!("{other:?}"),
        }
        // A long list is not a chain.
        let list = format!("SELECT a FROM t WHERE a IN (1{})", ", 1".repeat(20_000));
        assert!(query(&list).is_ok());
    }

    /// The differential corpus is the tree's: every statement is translated but those the
    /// corpus marks refused (`!`), of which only MariaDB's `GROUP BY x DESC` is a syntax error.
    #[test]
    fn the_tree_takes_the_corpus() {
        let corpus = include_str!("../../tests/mariadb/corpus.sql");
        let (mut taken, mut refused) = (0, Vec::new());
        // How the session's `sql_mode` has statements read (`ANSI_QUOTES`,
        // `NO_BACKSLASH_ESCAPES`), as the corpus sets it.
        let mut reading = (false, false);
        for line in corpus.lines() {
            let upper = line.to_ascii_uppercase();
            if upper.starts_with("SET ") && upper.contains("SQL_MODE") {
                reading = (
                    upper.contains("ANSI"),
                    upper.contains("NO_BACKSLASH_ESCAPES"),
                );
            }
            let read = super::super::dialect::in_default_mode(line, reading.0, reading.1);
            let sql = read.trim_start_matches(['!', '~']);
            // Queries (not the session's `SET`s, `SHOW`s and refusals both give, `=`).
            let first = sql
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_ascii_uppercase();
            if !["SELECT", "WITH", "VALUES"].contains(&first.as_str()) && !sql.starts_with('(') {
                continue;
            }
            // `SELECT … INTO @a` is its query, which the session runs (`select_into`).
            let into = select_into(sql);
            let sql = into.as_ref().map_or(sql, |(q, _)| q.as_str());
            match query(sql) {
                Ok(_) => taken += 1,
                Err(why) => refused.push((line, why)),
            }
        }
        refused.retain(|(line, why)| {
            !(line.starts_with('!')
                && (!matches!(why, Refusal::Syntax(_)) || line.contains(" DESC WITH ROLLUP")))
        });
        assert!(
            taken > 550 && refused.is_empty(),
            "taken {taken}, refused {refused:#?}"
        );
    }
}
