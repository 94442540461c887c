//! The order MariaDB resolves a statement's clauses in, and the word its errors name each
//! clause with: which of a statement's faults is the one it reports (the first its resolution
//! meets), and where (`Unknown column 'x' in 'WHERE'`).
//!
//! A SELECT's derived tables and `USING` columns first (`FROM`), then its list (`SELECT`),
//! `WHERE`, `ON`, `ORDER BY`, `GROUP BY`, its windows' own expressions (a `PARTITION BY` named
//! as `GROUP BY`, a window's `ORDER BY` as `ORDER BY`), `HAVING`. A subquery is resolved where
//! its clause meets it, its own clauses named as its own. MariaDB 10.11's `JOIN::prepare`:
//! `setup_fields`, then `setup_without_group` (`setup_conds`, `setup_order`, `setup_group`,
//! `setup_windows`), then the `HAVING` condition.

use sqlparser::ast::{
    Expr, Function, GroupByExpr, InTarget, JoinConstraint, JoinOperator, NamedWindowExpr,
    ObjectName, OrderByKind, Query, Select, SelectItem, SetExpr, TableFactor, WindowSpec,
    WindowType,
};

/// A place MariaDB resolves an expression in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Clause {
    From,
    Select,
    Where,
    On,
    OrderBy,
    GroupBy,
    /// A window's `PARTITION BY`.
    Partition,
    /// A window's `ORDER BY`.
    WindowOrder,
    Having,
}

impl Clause {
    /// The word MariaDB's errors name the clause with.
    pub(super) fn word(self) -> &'static str {
        match self {
            Clause::From => "FROM",
            Clause::Select => "SELECT",
            Clause::Where => "WHERE",
            Clause::On => "ON",
            Clause::OrderBy | Clause::WindowOrder => "ORDER BY",
            Clause::GroupBy | Clause::Partition => "GROUP BY",
            Clause::Having => "HAVING",
        }
    }

    /// Whether a window function may be called here (MySQL's "SELECT list and ORDER BY").
    pub(super) fn takes_windows(self) -> bool {
        matches!(self, Clause::Select | Clause::OrderBy)
    }
}

/// `select`'s expressions in the order MariaDB resolves them, each with its clause; `query` is
/// the query whose `ORDER BY` is the SELECT's own (none for a union's operand).
pub(super) fn clauses<'a>(select: &'a Select, query: Option<&'a Query>) -> Vec<(Clause, &'a Expr)> {
    let items = select.projection.iter().filter_map(|item| match item {
        SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => Some(e),
        _ => None,
    });
    let ons = select.from.iter().flat_map(|t| &t.joins).filter_map(|j| {
        match constraint(&j.join_operator) {
            Some(JoinConstraint::On(e)) => Some(e),
            _ => None,
        }
    });
    let order = query.map(order_by).unwrap_or_default();
    let groups = match &select.group_by {
        GroupByExpr::Expressions(es, _) => es.as_slice(),
        GroupByExpr::All(_) => &[],
    };
    let mut specs = Vec::new();
    for e in items.clone().chain(order.iter().copied()) {
        windows_in(e, &mut specs);
    }
    let named = select.named_window.iter().filter_map(|w| match &w.1 {
        NamedWindowExpr::WindowSpec(spec) => Some(spec),
        NamedWindowExpr::NamedWindow(_) => None,
    });
    let windowed = named.chain(specs).flat_map(|s| {
        let partition = s.partition_by.iter().map(|e| (Clause::Partition, e));
        partition.chain(s.order_by.iter().map(|o| (Clause::WindowOrder, &o.expr)))
    });
    let mut all: Vec<(Clause, &Expr)> = items.map(|e| (Clause::Select, e)).collect();
    all.extend(select.selection.iter().map(|e| (Clause::Where, e)));
    all.extend(ons.map(|e| (Clause::On, e)));
    all.extend(order.into_iter().map(|e| (Clause::OrderBy, e)));
    all.extend(groups.iter().map(|e| (Clause::GroupBy, e)));
    all.extend(windowed);
    all.extend(select.having.iter().map(|e| (Clause::Having, e)));
    all
}

/// A query's `ORDER BY` expressions.
fn order_by(query: &Query) -> Vec<&Expr> {
    match query.order_by.as_ref().map(|o| &o.kind) {
        Some(OrderByKind::Expressions(es)) => es.iter().map(|e| &e.expr).collect(),
        _ => Vec::new(),
    }
}

/// A join's `ON`, `USING` or neither, for the joins MySQL has (none for the others).
pub(super) fn constraint(op: &JoinOperator) -> Option<&JoinConstraint> {
    match op {
        JoinOperator::Join(c)
        | JoinOperator::Inner(c)
        | JoinOperator::Left(c)
        | JoinOperator::LeftOuter(c)
        | JoinOperator::Right(c)
        | JoinOperator::RightOuter(c)
        | JoinOperator::CrossJoin(c)
        | JoinOperator::StraightJoin(c) => Some(c),
        _ => None,
    }
}

/// The inline windows of the window functions in `e` (outside subqueries), outermost first.
fn windows_in<'a>(e: &'a Expr, specs: &mut Vec<&'a WindowSpec>) {
    if let Expr::Function(Function {
        over: Some(WindowType::WindowSpec(spec)),
        ..
    }) = e
    {
        specs.push(spec);
    }
    for kid in super::typing::children(e) {
        windows_in(kid, specs);
    }
}

/// What MariaDB's resolution meets, in its order, as [`resolve`] hands it on.
pub(super) enum Met<'a> {
    /// A join's `USING` column names (named as `FROM`).
    Using(&'a [ObjectName]),
    /// An expression in a clause of a SELECT (none for a union's `ORDER BY`).
    Expr(Option<&'a Select>, Clause, &'a Expr),
}

/// The first answer `at` gives for what MariaDB's resolution of `query` meets, in its order:
/// the query's CTEs, then each SELECT of its body (its derived tables, its `USING` columns,
/// its [`clauses`]) with its own `ORDER BY`; a union's `ORDER BY` after its last operand. A
/// subquery in an expression is `at`'s to resolve where it meets it.
pub(super) fn resolve<'a, T, F>(query: &'a Query, at: &mut F) -> Option<T>
where
    F: FnMut(Met<'a>) -> Option<T>,
{
    for cte in query.with.iter().flat_map(|w| &w.cte_tables) {
        if let Some(found) = resolve(&cte.query, at) {
            return Some(found);
        }
    }
    match query.body.as_ref() {
        SetExpr::Select(select) => resolve_select(select, Some(query), at),
        body => resolve_body(body, at).or_else(|| {
            order_by(query)
                .into_iter()
                .find_map(|e| at(Met::Expr(None, Clause::OrderBy, e)))
        }),
    }
}

fn resolve_body<'a, T, F>(body: &'a SetExpr, at: &mut F) -> Option<T>
where
    F: FnMut(Met<'a>) -> Option<T>,
{
    match body {
        SetExpr::Select(select) => resolve_select(select, None, at),
        SetExpr::Query(q) => resolve(q, at),
        SetExpr::SetOperation { left, right, .. } => {
            resolve_body(left, at).or_else(|| resolve_body(right, at))
        }
        _ => None,
    }
}

fn resolve_select<'a, T, F>(select: &'a Select, query: Option<&'a Query>, at: &mut F) -> Option<T>
where
    F: FnMut(Met<'a>) -> Option<T>,
{
    for t in &select.from {
        let factors = std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation));
        for factor in factors {
            if let TableFactor::Derived { subquery, .. } = factor {
                if let Some(found) = resolve(subquery, at) {
                    return Some(found);
                }
            }
        }
        for j in &t.joins {
            if let Some(JoinConstraint::Using(names)) = constraint(&j.join_operator) {
                if let Some(found) = at(Met::Using(names)) {
                    return Some(found);
                }
            }
        }
    }
    clauses(select, query)
        .into_iter()
        .find_map(|(clause, e)| at(Met::Expr(Some(select), clause, e)))
}

/// The clause MariaDB names where a statement's column `name` (`c` or `t.c`, as SQLite names
/// the column it found none of) is unknown: the first place its resolution meets the name.
/// `None` where `query` names no such column.
pub(super) fn unknown_column(query: &Query, name: &str) -> Option<Clause> {
    resolve(query, &mut |met| match met {
        Met::Using(names) => names
            .iter()
            .any(|n| n.to_string().eq_ignore_ascii_case(name))
            .then_some(Clause::From),
        Met::Expr(_, clause, e) => in_expr(e, clause, name),
    })
}

/// The clause `e` (in `clause`) names `name` in: `clause`, or a subquery's own.
fn in_expr(e: &Expr, clause: Clause, name: &str) -> Option<Clause> {
    match e {
        Expr::Identifier(i) if i.value.eq_ignore_ascii_case(name) => Some(clause),
        Expr::CompoundIdentifier(parts) => {
            let joined: Vec<&str> = parts.iter().map(|p| p.value.as_str()).collect();
            joined
                .join(".")
                .eq_ignore_ascii_case(name)
                .then_some(clause)
        }
        Expr::Subquery(q) | Expr::Exists { subquery: q, .. } => unknown_column(q, name),
        Expr::In {
            expr,
            target: InTarget::Subquery(subquery),
            ..
        } => in_expr(expr, clause, name).or_else(|| unknown_column(subquery, name)),
        _ => super::typing::children(e)
            .into_iter()
            .find_map(|kid| in_expr(kid, clause, name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::ast::Statement;
    use sqlparser::dialect::MySqlDialect;
    use sqlparser::parser::Parser;

    /// MariaDB 10.11's words for an unknown column, where each of these statements names it
    /// (its own answers to them).
    #[test]
    fn an_unknown_column_is_named_where_mariadb_meets_it_first() {
        for (sql, name, want) in [
            ("SELECT nosuch FROM t WHERE nosuch2", "nosuch", "SELECT"),
            ("SELECT nosuch FROM t WHERE nosuch2", "nosuch2", "WHERE"),
            ("SELECT 1 FROM t a JOIN t b ON nosuch", "nosuch", "ON"),
            (
                "SELECT 1 FROM t a JOIN t b ON x WHERE nosuch",
                "nosuch",
                "WHERE",
            ),
            ("SELECT 1 FROM t GROUP BY nosuch", "nosuch", "GROUP BY"),
            (
                "SELECT 1 FROM t GROUP BY a HAVING nosuch",
                "nosuch",
                "HAVING",
            ),
            (
                "SELECT 1 FROM t HAVING a ORDER BY nosuch",
                "nosuch",
                "ORDER BY",
            ),
            (
                "SELECT ROW_NUMBER() OVER (PARTITION BY nosuch) FROM t",
                "nosuch",
                "GROUP BY",
            ),
            (
                "SELECT ROW_NUMBER() OVER (ORDER BY nosuch) FROM t",
                "nosuch",
                "ORDER BY",
            ),
            (
                "SELECT 1 FROM t WHERE a IN (SELECT nosuch FROM u)",
                "nosuch",
                "SELECT",
            ),
            (
                "SELECT 1 FROM t ORDER BY (SELECT nosuch)",
                "nosuch",
                "SELECT",
            ),
            (
                "SELECT 1 FROM t WHERE EXISTS (SELECT 1 FROM u WHERE nosuch)",
                "nosuch",
                "WHERE",
            ),
            ("SELECT * FROM (SELECT nosuch FROM t) d", "nosuch", "SELECT"),
            (
                "SELECT 1 FROM t a JOIN t b USING (nosuch)",
                "nosuch",
                "FROM",
            ),
            ("SELECT t.nosuch FROM t", "t.nosuch", "SELECT"),
            ("SELECT NOSUCH FROM t", "NOSUCH", "SELECT"),
            (
                "SELECT 1 FROM t UNION SELECT 2 FROM t ORDER BY nosuch",
                "nosuch",
                "ORDER BY",
            ),
        ] {
            let parsed = Parser::parse_sql(&MySqlDialect {}, sql).expect(sql);
            let [Statement::Query(q)] = parsed.as_slice() else {
                unreachable!("{sql}")
            };
            assert_eq!(
                unknown_column(q, name).map(Clause::word),
                Some(want),
                "{sql}"
            );
        }
    }
}
