//! Which collation a string expression compares, sorts and groups by: MySQL's coercibility
//! rules ("Collation Coercibility in Expressions"), which SQLite does not have.
//!
//! SQLite gives a collation only to a column and to `x COLLATE name`; any other expression (a
//! function's result, a `CASE`) compares its bytes. MySQL gives every string one, derived from
//! its operands: `LTRIM(name)` keeps `name`'s `utf8mb4_general_ci`, so `ORDER BY LTRIM(name)`,
//! `GROUP BY`, `DISTINCT`, `MIN` and comparisons of it ignore case and accents. `translate` reads
//! each string's derivation here and writes it as SQLite's `COLLATE` where SQLite would lose it.

/// How strongly a string holds its collation when it meets another, weakest first: a literal
/// (or a number made text) gives way to a column, and both to a `COLLATE` clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Derivation {
    Coercible,
    Implicit,
    Explicit,
}

/// A string's collation (by the name SQLite knows it by: `collation::NAME`, `collation::BIN`,
/// `BINARY`) and its derivation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Collated {
    pub derivation: Derivation,
    pub name: &'static str,
}

impl Collated {
    pub fn new(derivation: Derivation, name: &'static str) -> Collated {
        Collated { derivation, name }
    }
}

/// The collation operands of one operation agree on (MySQL's `DTCollation::aggregate`): the
/// strongest derivation's; between equal derivations of different collations, the binary one
/// (MySQL's rule for two collations of one character set). `None` where no operand is a string.
pub fn aggregate(operands: impl IntoIterator<Item = Option<Collated>>) -> Option<Collated> {
    operands.into_iter().flatten().reduce(|a, b| {
        if a.derivation != b.derivation {
            return if a.derivation > b.derivation { a } else { b };
        }
        if a.name == b.name || binary(a.name) {
            a
        } else if binary(b.name) {
            b
        } else {
            a
        }
    })
}

/// Whether a collation compares bytes (a `_bin` one, or `binary`).
fn binary(name: &str) -> bool {
    name == super::collation::BIN || name == "BINARY"
}

/// The collation SQLite compares two operands by, given each one's own where it has one
/// (`explicit`: a `COLLATE` clause; `column`: a column's declared one): the left operand's
/// explicit one, else the right's, else the left column's, else the right column's, else bytes
/// ("Rules For Determining Which Collating Function To Use").
pub fn sqlite_pick(left: Own, right: Own) -> &'static str {
    match (left, right) {
        (Own::Explicit(l), _) => l,
        (_, Own::Explicit(r)) => r,
        (Own::Column(l), _) => l,
        (_, Own::Column(r)) => r,
        _ => "BINARY",
    }
}

/// The collation an operand has in SQLite's eyes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Own {
    Explicit(&'static str),
    Column(&'static str),
    None,
}

#[cfg(test)]
mod tests {
    use super::super::collation::{BIN, NAME};
    use super::*;

    #[test]
    fn the_strongest_derivation_wins_and_binary_breaks_ties() {
        let literal = Collated::new(Derivation::Coercible, BIN);
        let column = Collated::new(Derivation::Implicit, NAME);
        let explicit = Collated::new(Derivation::Explicit, BIN);
        assert_eq!(aggregate([Some(literal), Some(column)]), Some(column));
        assert_eq!(
            aggregate([Some(column), None, Some(explicit)]),
            Some(explicit)
        );
        let general_literal = Collated::new(Derivation::Coercible, NAME);
        assert_eq!(
            aggregate([Some(general_literal), Some(literal)]),
            Some(literal)
        );
        assert_eq!(aggregate([None, None]), None);
    }

    #[test]
    fn sqlite_prefers_the_left_explicit_collation_then_columns() {
        assert_eq!(sqlite_pick(Own::Column(NAME), Own::Explicit(BIN)), BIN);
        assert_eq!(sqlite_pick(Own::Explicit(NAME), Own::Explicit(BIN)), NAME);
        assert_eq!(sqlite_pick(Own::None, Own::Column(NAME)), NAME);
        assert_eq!(sqlite_pick(Own::None, Own::None), "BINARY");
    }
}
