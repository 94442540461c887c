//! Window functions where MySQL refuses them, with MariaDB's errors (SQLite's own, "misuse of
//! window function", would say 1111 for all of them, or answer where MariaDB refuses):
//! - 4015: a window function outside the select list and `ORDER BY` (in `WHERE`, `ON`,
//!   `GROUP BY`, `HAVING`, or in a window's own `PARTITION BY`/`ORDER BY`);
//! - 4017: a frame given to a function that has none (`ROW_NUMBER`, `RANK`, …, `NTILE`);
//! - 4018: no `ORDER BY` in the window of one that needs an order (`RANK`, …, `LAG`, `LEAD`);
//! - 4074: a window function among an aggregate's (or another window function's) arguments.
//!
//! Which error a statement with several gets is the first that MariaDB's resolution meets, in
//! its order ([`resolution::resolve`]); in a call, its placement, its frame, its order, its
//! arguments, then what its arguments hold. A subquery is a SELECT of its own.

use super::resolution::{self, Met};
use sqlparser::ast::{Expr, InTarget, NamedWindowExpr, Query, Select, WindowType};

/// The functions that take no frame (MariaDB's `is_frame_prohibited`).
const FRAMELESS: &[&str] = &[
    "ROW_NUMBER",
    "RANK",
    "DENSE_RANK",
    "PERCENT_RANK",
    "CUME_DIST",
    "NTILE",
];

/// The functions that need their window ordered (MariaDB's `requires_order`).
const ORDERED: &[&str] = &[
    "RANK",
    "DENSE_RANK",
    "PERCENT_RANK",
    "CUME_DIST",
    "LAG",
    "LEAD",
];

/// MariaDB's error for the first window function of `query` (or of a subquery in it) that
/// MariaDB refuses, as [the module](self) lists them, in MariaDB's order ([`resolution::resolve`]).
pub(super) fn refused(query: &Query) -> Option<(u16, String)> {
    resolution::resolve(query, &mut |met| match met {
        Met::Expr(select, clause, e) => Walk { select }.expr(e, clause.takes_windows()).err(),
        Met::Using(_) => None,
    })
}

struct Walk<'a> {
    /// The SELECT whose named windows a call may name (none for a union's `ORDER BY`).
    select: Option<&'a Select>,
}

impl Walk<'_> {
    /// `e`, where a window function is `allowed` or not: MariaDB's error for the first it
    /// refuses, else whether `e` calls one (outside subqueries, which are resolved apart).
    fn expr(&self, e: &Expr, allowed: bool) -> Result<bool, (u16, String)> {
        let subquery = match e {
            Expr::Subquery(q) | Expr::Exists { subquery: q, .. } => Some(q),
            Expr::In {
                expr,
                target: InTarget::Subquery(q),
                ..
            } => {
                self.expr(expr, allowed)?;
                Some(q)
            }
            _ => None,
        };
        if let Some(q) = subquery {
            return refused(q).map_or(Ok(false), Err);
        }
        let args = super::typing::children(e);
        let mut met = false;
        let Expr::Function(f) = e else {
            for kid in args {
                met |= self.expr(kid, allowed)?;
            }
            return Ok(met);
        };
        let name = f.name.to_string().to_ascii_uppercase();
        if let Some(over) = &f.over {
            if !allowed {
                return Err((
                    4015,
                    "Window function is allowed only in SELECT list and ORDER BY clause".into(),
                ));
            }
            let lower = name.to_ascii_lowercase();
            let (framed, ordered) = self.window(over);
            if framed && FRAMELESS.contains(&name.as_str()) {
                return Err((4017, format!("Window frame is not allowed with '{lower}'")));
            }
            if !ordered && ORDERED.contains(&name.as_str()) {
                return Err((
                    4018,
                    format!("No order list in window specification for '{lower}'"),
                ));
            }
        }
        for kid in args {
            met |= self.expr(kid, allowed)?;
        }
        // An aggregate's arguments, or a window function's, hold none.
        if met && (f.over.is_some() || super::translate::is_aggregate(e)) {
            return Err((
                4074,
                "Window functions can not be used as arguments to group functions.".into(),
            ));
        }
        Ok(met || f.over.is_some())
    }

    /// Whether the window `over` has a frame, and an order: its own, or the named window's it
    /// refines (a name this SELECT does not define has neither: SQLite refuses it).
    fn window(&self, over: &WindowType) -> (bool, bool) {
        let (mut framed, mut ordered, mut name) = match over {
            WindowType::WindowSpec(s) => (
                s.window_frame.is_some(),
                !s.order_by.is_empty(),
                s.window_name.as_ref(),
            ),
            WindowType::NamedWindow(n) => (false, false, Some(n)),
        };
        let named: &[_] = self.select.map_or(&[], |s| &s.named_window);
        // (A definition names only those before it: the chain is as long as the list at most.)
        for _ in 0..named.len() {
            let Some(n) = name else { break };
            let found = named
                .iter()
                .find(|w| w.0.value.eq_ignore_ascii_case(&n.value));
            name = match found.map(|w| &w.1) {
                Some(NamedWindowExpr::WindowSpec(s)) => {
                    framed |= s.window_frame.is_some();
                    ordered |= !s.order_by.is_empty();
                    s.window_name.as_ref()
                }
                Some(NamedWindowExpr::NamedWindow(next)) => Some(next),
                None => None,
            };
        }
        (framed, ordered)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::ast::Statement;
    use sqlparser::dialect::MySqlDialect;
    use sqlparser::parser::Parser;

    fn refusal(sql: &str) -> Option<(u16, String)> {
        let parsed = Parser::parse_sql(&MySqlDialect {}, sql).expect(sql);
        let [Statement::Query(q)] = parsed.as_slice() else {
            unreachable!("{sql}")
        };
        refused(q)
    }

    fn code(sql: &str) -> Option<u16> {
        refusal(sql).map(|(code, _)| code)
    }

    /// MariaDB 10.11's answers: the error of the first refusal its resolution meets, or none.
    #[test]
    fn each_refusal_is_the_first_mariadb_meets() {
        for (sql, want) in [
            ("SELECT ROW_NUMBER() OVER () FROM t", None),
            ("SELECT 1 FROM t ORDER BY ROW_NUMBER() OVER ()", None),
            (
                "SELECT 1 FROM t WHERE (SELECT ROW_NUMBER() OVER ()) = 1",
                None,
            ),
            ("SELECT SUM(a) OVER (ORDER BY SUM(a)) FROM t", None),
            (
                "SELECT NTILE(2) OVER (), FIRST_VALUE(a) OVER (ROWS 1 PRECEDING) FROM t",
                None,
            ),
            ("SELECT RANK() OVER w FROM t WINDOW w AS (ORDER BY a)", None),
            (
                "SELECT RANK() OVER (w ROWS 1 PRECEDING) FROM t WINDOW w AS (ORDER BY a)",
                Some(4017),
            ),
            ("SELECT 1 FROM t WHERE ROW_NUMBER() OVER () > 1", Some(4015)),
            (
                "SELECT 1 FROM t a JOIN t b ON RANK() OVER () = 1",
                Some(4015),
            ),
            ("SELECT 1 FROM t GROUP BY ROW_NUMBER() OVER ()", Some(4015)),
            (
                "SELECT a FROM t GROUP BY a HAVING MAX(ROW_NUMBER() OVER ())",
                Some(4015),
            ),
            (
                "SELECT SUM(a) OVER (PARTITION BY RANK() OVER ()) FROM t",
                Some(4015),
            ),
            ("SELECT SUM(ROW_NUMBER() OVER ()) FROM t", Some(4074)),
            (
                "SELECT NTILE(ROW_NUMBER() OVER ()) OVER () FROM t",
                Some(4074),
            ),
            ("SELECT SUM(RANK() OVER ()) FROM t", Some(4018)),
            ("SELECT rank() OVER (PARTITION BY a) FROM t", Some(4018)),
            (
                "SELECT RANK() OVER (PARTITION BY ROW_NUMBER() OVER ()) FROM t",
                Some(4018),
            ),
            (
                "SELECT RANK() OVER (ORDER BY ROW_NUMBER() OVER ()) FROM t",
                Some(4015),
            ),
            (
                "SELECT RANK() OVER () FROM t WHERE ROW_NUMBER() OVER () > 1",
                Some(4018),
            ),
            (
                "SELECT 1 FROM t WHERE ROW_NUMBER() OVER () ORDER BY RANK() OVER ()",
                Some(4015),
            ),
            (
                "SELECT 1 FROM t GROUP BY ROW_NUMBER() OVER () ORDER BY RANK() OVER ()",
                Some(4018),
            ),
            (
                "SELECT NTILE(RANK() OVER ()) OVER (ROWS UNBOUNDED PRECEDING) FROM t",
                Some(4017),
            ),
            ("SELECT 1 UNION SELECT RANK() OVER () FROM t", Some(4018)),
            // A union's ORDER BY after its last operand; a subquery where its clause meets it.
            (
                "SELECT 1 UNION SELECT RANK() OVER () FROM t ORDER BY NTILE(2) OVER (ROWS 1 PRECEDING)",
                Some(4018),
            ),
            (
                "SELECT 1 UNION SELECT 2 ORDER BY NTILE(2) OVER (ROWS 1 PRECEDING)",
                Some(4017),
            ),
            (
                "SELECT 1 FROM t WHERE 1 IN (SELECT RANK() OVER () FROM t) AND NTILE(2) OVER () = 1",
                Some(4018),
            ),
            (
                "SELECT 1 FROM t WHERE a IN (SELECT LAG(a) OVER () FROM t)",
                Some(4018),
            ),
        ] {
            assert_eq!(code(sql), want, "{sql}");
        }
    }

    /// The messages name the function as MariaDB does, lower case whatever the case written.
    #[test]
    fn messages_name_the_function_in_lower_case() {
        assert_eq!(
            refusal("SELECT Cume_Dist() OVER () FROM t"),
            Some((
                4018,
                "No order list in window specification for 'cume_dist'".to_string()
            ))
        );
    }
}
