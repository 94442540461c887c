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

/// MySQL's refusal of one operation's string operands (`operands`, in its order, each with
/// the name MySQL gives its collation) where two of them are of different explicit collations
/// (`x COLLATE a = y COLLATE b`): no collation wins, so MySQL names an illegal mix of them
/// (error 1267 for two operands, 1270 for three, 1271 for more) for operation `operation`.
pub fn explicit_mix(operation: &str, operands: &[(Collated, &str)]) -> Option<(u16, String)> {
    let mut explicit = operands
        .iter()
        .filter(|(c, _)| c.derivation == Derivation::Explicit);
    let first = explicit.next()?;
    explicit.find(|(c, _)| c.name != first.0.name)?;
    let each = |(c, name): &(Collated, &str)| {
        let derivation = match c.derivation {
            Derivation::Explicit => "EXPLICIT",
            Derivation::Implicit => "IMPLICIT",
            Derivation::Coercible => "COERCIBLE",
        };
        format!("({name},{derivation})")
    };
    Some(match operands {
        [a, b] => (
            1267,
            format!(
                "Illegal mix of collations {} and {} for operation '{operation}'",
                each(a),
                each(b)
            ),
        ),
        [_, _, _] => (
            1270,
            format!(
                "Illegal mix of collations {} for operation '{operation}'",
                operands.iter().map(each).collect::<Vec<_>>().join(", ")
            ),
        ),
        _ => (
            1271,
            format!("Illegal mix of collations for operation '{operation}'"),
        ),
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
    fn two_explicit_collations_are_an_illegal_mix() {
        let bin = (Collated::new(Derivation::Explicit, BIN), "utf8mb4_bin");
        let ci = (
            Collated::new(Derivation::Explicit, NAME),
            "utf8mb4_general_ci",
        );
        let column = (Collated::new(Derivation::Implicit, BIN), "utf8mb4_bin");
        let literal = (
            Collated::new(Derivation::Coercible, NAME),
            "utf8mb4_general_ci",
        );
        assert_eq!(explicit_mix("=", &[bin, bin]), None);
        assert_eq!(explicit_mix("=", &[ci, column]), None);
        assert_eq!(
            explicit_mix("=", &[bin, ci]),
            Some((
                1267,
                "Illegal mix of collations (utf8mb4_bin,EXPLICIT) and \
                 (utf8mb4_general_ci,EXPLICIT) for operation '='"
                    .into()
            ))
        );
        assert_eq!(
            explicit_mix("between", &[bin, literal, ci]),
            Some((
                1270,
                "Illegal mix of collations (utf8mb4_bin,EXPLICIT), \
                 (utf8mb4_general_ci,COERCIBLE), (utf8mb4_general_ci,EXPLICIT) for operation \
                 'between'"
                    .into()
            ))
        );
        assert_eq!(
            explicit_mix("concat", &[bin, literal, literal, ci]).map(|e| e.0),
            Some(1271)
        );
    }

    #[test]
    fn sqlite_prefers_the_left_explicit_collation_then_columns() {
        assert_eq!(sqlite_pick(Own::Column(NAME), Own::Explicit(BIN)), BIN);
        assert_eq!(sqlite_pick(Own::Explicit(NAME), Own::Explicit(BIN)), NAME);
        assert_eq!(sqlite_pick(Own::None, Own::Column(NAME)), NAME);
        assert_eq!(sqlite_pick(Own::None, Own::None), "BINARY");
    }
}
