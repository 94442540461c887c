//! MySQL's aggregate functions that SQLite lacks or computes otherwise: the standard deviations
//! and variances, `SUM`/`AVG` of doubles (added without compensation), `BIT_OR`/`BIT_AND`/`BIT_XOR`, and `GROUP_CONCAT` with `DISTINCT` and a
//! separator (`statement` rewrites `GROUP_CONCAT([DISTINCT] a, … [ORDER BY …] [SEPARATOR s])`
//! to `mysql_group_concat(distinct, s, a, … [ORDER BY …])`; SQLite orders an aggregate's input),
//! and `MIN`/`MAX` that leave a column outside aggregates the group's first row's.

use rusqlite::functions::{Aggregate, Context, FunctionFlags, WindowAggregate};
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, Result};

use super::collation::Collation;
use super::decimal::Decimal;
use super::functions::{decimal_of, held, number, text};

/// Count, mean and sum of squared deviations (Welford), for the variances.
#[derive(Default)]
struct Moments {
    n: u64,
    mean: f64,
    m2: f64,
}

#[derive(Clone, Copy)]
enum Spread {
    PopVariance,
    SampleVariance,
    PopDeviation,
    SampleDeviation,
}

impl Aggregate<Moments, Option<f64>> for Spread {
    fn init(&self, _: &mut Context<'_>) -> Result<Moments> {
        Ok(Moments::default())
    }

    fn step(&self, ctx: &mut Context<'_>, m: &mut Moments) -> Result<()> {
        if let Some(x) = number(ctx.get_raw(0)) {
            m.n += 1;
            let d = x - m.mean;
            m.mean += d / m.n as f64;
            m.m2 += d * (x - m.mean);
        }
        Ok(())
    }

    fn finalize(&self, _: &mut Context<'_>, m: Option<Moments>) -> Result<Option<f64>> {
        let Some(m) = m.filter(|m| m.n > 0) else {
            return Ok(None);
        };
        let sample = matches!(self, Spread::SampleVariance | Spread::SampleDeviation);
        if sample && m.n < 2 {
            return Ok(None);
        }
        let var = m.m2 / (m.n - u64::from(sample)) as f64;
        Ok(Some(match self {
            Spread::PopVariance | Spread::SampleVariance => var,
            _ => var.sqrt(),
        }))
    }
}

#[derive(Clone, Copy)]
enum Bits {
    Or,
    And,
    Xor,
}

impl Aggregate<u64, Value> for Bits {
    fn init(&self, _: &mut Context<'_>) -> Result<u64> {
        Ok(match self {
            Bits::And => u64::MAX,
            _ => 0,
        })
    }

    fn step(&self, ctx: &mut Context<'_>, acc: &mut u64) -> Result<()> {
        // Each value as MariaDB's `val_int` reads it: a number rounded half away from zero (a
        // DOUBLE was rounded to even already: `translate::unsigned`) within a BIGINT's range, a
        // string's leading integer.
        let v = match ctx.get_raw(0) {
            ValueRef::Null => return Ok(()),
            ValueRef::Integer(i) => i as u64,
            ValueRef::Text(t) | ValueRef::Blob(t) => super::functions::leading_integer(t) as u64,
            ValueRef::Real(r) => r.round() as i64 as u64,
        };
        match self {
            Bits::Or => *acc |= v,
            Bits::And => *acc &= v,
            Bits::Xor => *acc ^= v,
        }
        Ok(())
    }

    fn finalize(&self, ctx: &mut Context<'_>, acc: Option<u64>) -> Result<Value> {
        let acc = match acc {
            Some(a) => a,
            None => self.init(ctx)?,
        };
        // Its 64 bits, as SQLite holds a BIGINT UNSIGNED (`typing::Ty::UInt`).
        Ok(Value::Integer(acc as i64))
    }
}

/// `GROUP_CONCAT`: rows with a NULL among the values are skipped; `DISTINCT` compares strings as
/// the default collation does (case and trailing spaces aside); the result is cut at the session's
/// `group_concat_max_len` (MariaDB's 1 MiB unless set) or `@@max_allowed_packet`, the smaller.
struct GroupConcat {
    /// Whether the call has a `LIMIT`: its count is the third argument
    /// (`mysql_group_concat_limit`), the values follow it.
    limited: bool,
    max_len: usize,
    /// The session's `group_concat_max_len`, read as each group starts; each group cut counts
    /// a warning (1260).
    vars: std::sync::Arc<parking_lot::Mutex<super::variables::Variables>>,
}

#[derive(Default)]
struct Concat {
    /// Where this group is cut: the smaller of `group_concat_max_len` and the packet's bound.
    max_len: usize,
    out: String,
    any: bool,
    seen: std::collections::HashSet<String>,
    full: bool,
    /// The values written so far (counted against a `LIMIT`).
    written: u64,
}

impl Aggregate<Concat, Option<String>> for GroupConcat {
    fn init(&self, _: &mut Context<'_>) -> Result<Concat> {
        let session = usize::try_from(self.vars.lock().group_concat_max_len).unwrap_or(usize::MAX);
        Ok(Concat {
            max_len: self.max_len.min(session),
            ..Concat::default()
        })
    }

    fn step(&self, ctx: &mut Context<'_>, acc: &mut Concat) -> Result<()> {
        let first = if self.limited { 3 } else { 2 };
        if acc.full || ctx.len() <= first {
            return Ok(());
        }
        // `DISTINCT` by the collation numbered so (`Collation::number`), or none.
        let distinct = match ctx.get_raw(0) {
            ValueRef::Integer(n) => super::collation::Collation::numbered(n),
            _ => None,
        };
        let mut item = String::new();
        // (Where `DISTINCT`: the values as the collation compares them, a string by its
        // `Collation::key`, each after a NUL: `'a'` and `'A  '` are one.)
        let mut key = String::new();
        for i in first..ctx.len() {
            match ctx.get_raw(i) {
                ValueRef::Null => return Ok(()),
                v => {
                    let t = text(v);
                    if let Some(by) = distinct {
                        key.push('\0');
                        match v {
                            ValueRef::Text(_) => key.push_str(&by.key(&t)),
                            _ => key.push_str(&t),
                        }
                    }
                    item.push_str(&t);
                }
            }
        }
        if distinct.is_some() && !acc.seen.insert(key) {
            return Ok(());
        }
        // Past the `LIMIT`, a value counts as met (`LIMIT 0` of some rows is `''`, not NULL)
        // and is not written.
        if self.limited {
            let count = match ctx.get_raw(2) {
                ValueRef::Integer(n) => n as u64,
                v => number(v).unwrap_or(0.0) as u64,
            };
            if acc.written >= count {
                acc.any = true;
                return Ok(());
            }
            acc.written += 1;
        }
        if acc.any && (!self.limited || acc.written > 1) {
            acc.out.push_str(&text(ctx.get_raw(1)));
        }
        acc.any = true;
        acc.out.push_str(&item);
        if acc.out.len() > acc.max_len {
            self.vars.lock().cut_by_group_concat += 1;
            let mut cut = acc.max_len;
            while !acc.out.is_char_boundary(cut) {
                cut -= 1;
            }
            acc.out.truncate(cut);
            acc.full = true;
        }
        Ok(())
    }

    fn finalize(&self, _: &mut Context<'_>, acc: Option<Concat>) -> Result<Option<String>> {
        Ok(acc.filter(|a| a.any).map(|a| a.out))
    }
}

/// `SUM` of DECIMALs and BIGINT UNSIGNEDs, exact (`translate::decimals` calls it where MySQL's
/// sum is an exact DECIMAL SQLite would add as doubles): each value read as its exact digits,
/// the sum held as `decimal::Decimal::held` holds one. NULL where no value is.
struct DecimalSum;

/// A [`DecimalSum`]'s running sum: of integers alone, a 128-bit one (no 64-bit values overflow
/// it: 2^64 of them would be needed), else the exact DECIMAL.
enum Sum {
    Integers(i128),
    Exact(Decimal),
}

impl Aggregate<Option<Sum>, Value> for DecimalSum {
    fn init(&self, _: &mut Context<'_>) -> Result<Option<Sum>> {
        Ok(None)
    }

    fn step(&self, ctx: &mut Context<'_>, acc: &mut Option<Sum>) -> Result<()> {
        let v = ctx.get_raw(0);
        *acc = match (acc.take(), v) {
            (None, ValueRef::Integer(i)) => Some(Sum::Integers(i128::from(i))),
            (Some(Sum::Integers(sum)), ValueRef::Integer(i)) => {
                Some(Sum::Integers(sum + i128::from(i)))
            }
            (sum, v) => match (sum, decimal_of(v)) {
                (sum, None) => sum,
                (None, Some(d)) => Some(Sum::Exact(d)),
                (Some(Sum::Integers(sum)), Some(d)) => Some(Sum::Exact(
                    Decimal::parse(&sum.to_string()).map_or(d.clone(), |s| s.add(&d)),
                )),
                (Some(Sum::Exact(sum)), Some(d)) => Some(Sum::Exact(sum.add(&d))),
            },
        };
        Ok(())
    }

    fn finalize(&self, _: &mut Context<'_>, acc: Option<Option<Sum>>) -> Result<Value> {
        Ok(match acc.flatten() {
            None => Value::Null,
            Some(Sum::Integers(sum)) => match i64::try_from(sum) {
                Ok(i) => Value::Integer(i),
                Err(_) => Decimal::parse(&sum.to_string()).map_or(Value::Null, |d| held(&d)),
            },
            Some(Sum::Exact(d)) => held(&d),
        })
    }
}

/// `SUM` and `AVG` of doubles, added one after another as MariaDB's `Item_sum_sum` and
/// `Item_sum_avg` add them. SQLite's own `sum`/`avg` compensate each addition's rounding
/// (Kahan–Babuška–Neumaier), which is more exact and so shows other last digits:
/// `AVG(0.1e0)` over 76 rows is 0.1 there, 0.1000000000000003 in MariaDB.
#[derive(Clone, Copy)]
enum PlainSum {
    Sum,
    Avg,
}

impl Aggregate<(f64, u64), Option<f64>> for PlainSum {
    fn init(&self, _: &mut Context<'_>) -> Result<(f64, u64)> {
        Ok((0.0, 0))
    }

    fn step(&self, ctx: &mut Context<'_>, (sum, n): &mut (f64, u64)) -> Result<()> {
        if let Some(x) = number(ctx.get_raw(0)) {
            *sum += x;
            *n += 1;
        }
        Ok(())
    }

    fn finalize(&self, _: &mut Context<'_>, acc: Option<(f64, u64)>) -> Result<Option<f64>> {
        Ok(acc.filter(|(_, n)| *n > 0).map(|(sum, n)| match self {
            PlainSum::Sum => sum,
            PlainSum::Avg => sum / n as f64,
        }))
    }
}

/// MariaDB's `PERCENTILE_CONT(p) WITHIN GROUP (ORDER BY x [DESC]) OVER (PARTITION BY …)`
/// (and `MEDIAN(x)`, `p` 0.5) and `PERCENTILE_DISC`: `statement` calls
/// `mysql_percentile_cont(p, x, desc)` or `mysql_percentile_disc(p, x, desc, numeric)` over the
/// whole partition (a frame from its first row to its last). Rows whose `x` is NULL are left
/// out, as MariaDB leaves them; the values are sorted once, when the first row's value is
/// asked. They are the partition's rows SQLite holds already for the window (counted in SQL's
/// memory), one value each.
#[derive(Clone, Copy)]
enum Percentile {
    /// Interpolated between the two rows around `1 + p·(n − 1)`, a DOUBLE.
    Cont,
    /// The first value whose cumulative distribution reaches `p`, of `x`'s own type.
    Disc,
}

#[derive(Default)]
struct Ranked {
    p: Option<f64>,
    values: Vec<Value>,
    desc: bool,
    /// `x` compares as a number (else as text, by MySQL's collation).
    numeric: bool,
    sorted: bool,
    /// The value answered, kept until a row comes: SQLite asks it once per row of the
    /// partition, which must not cost a walk of the values each time.
    answer: Option<Value>,
}

impl Percentile {
    fn name(self) -> &'static str {
        match self {
            Percentile::Cont => "percentile_cont",
            Percentile::Disc => "percentile_disc",
        }
    }
}

impl Ranked {
    fn order(&self, a: &Value, b: &Value) -> std::cmp::Ordering {
        let ordering = if self.numeric {
            let n = |v: &Value| number(ValueRef::from(v)).unwrap_or(0.0);
            n(a).total_cmp(&n(b))
        } else {
            super::collation::compare(&text(ValueRef::from(a)), &text(ValueRef::from(b)))
        };
        if self.desc {
            ordering.reverse()
        } else {
            ordering
        }
    }

    fn sort(&mut self) {
        if !self.sorted {
            let mut values = std::mem::take(&mut self.values);
            values.sort_by(|a, b| self.order(a, b));
            self.values = values;
            self.sorted = true;
        }
    }
}

impl Aggregate<Ranked, Value> for Percentile {
    fn init(&self, _: &mut Context<'_>) -> Result<Ranked> {
        Ok(Ranked::default())
    }

    fn step(&self, ctx: &mut Context<'_>, r: &mut Ranked) -> Result<()> {
        // A row of no fraction is left out (MariaDB's `add`).
        let Some(p) = number(ctx.get_raw(0)) else {
            return Ok(());
        };
        match r.p {
            None if !(0.0..=1.0).contains(&p) => {
                return Err(super::functions::mysql_error(
                    4103,
                    &format!(
                        "Argument to the {} function does not belong to the range [0,1]",
                        self.name()
                    ),
                ))
            }
            None => r.p = Some(p),
            Some(q) if q != p => {
                return Err(super::functions::mysql_error(
                    4102,
                    &format!(
                        "Argument to the {} function is not a constant for a partition",
                        self.name()
                    ),
                ))
            }
            Some(_) => {}
        }
        let x = ctx.get_raw(1);
        if matches!(x, ValueRef::Null) {
            return Ok(());
        }
        r.desc = ctx.get::<i64>(2)? != 0;
        r.numeric = match self {
            Percentile::Cont => true,
            Percentile::Disc => ctx.get::<i64>(3)? != 0,
        };
        r.values.push(x.into());
        r.sorted = false;
        r.answer = None;
        Ok(())
    }

    fn finalize(&self, _: &mut Context<'_>, r: Option<Ranked>) -> Result<Value> {
        let mut r = r.unwrap_or_default();
        self.value(Some(&mut r))
    }
}

impl WindowAggregate<Ranked, Value> for Percentile {
    fn value(&self, r: Option<&mut Ranked>) -> Result<Value> {
        let Some(r) = r else { return Ok(Value::Null) };
        let (Some(p), n) = (r.p, r.values.len()) else {
            return Ok(Value::Null);
        };
        if n == 0 {
            return Ok(Value::Null);
        }
        if let Some(answer) = &r.answer {
            return Ok(answer.clone());
        }
        r.sort();
        let answer = match self {
            Percentile::Cont => {
                let at = 1.0 + p * (n - 1) as f64;
                let (floor, ceil) = (at.floor(), at.ceil());
                let x =
                    |row: f64| number(ValueRef::from(&r.values[row as usize - 1])).unwrap_or(0.0);
                if floor == ceil {
                    Value::Real(x(floor))
                } else {
                    Value::Real((at - floor) * x(ceil) + (ceil - at) * x(floor))
                }
            }
            Percentile::Disc => {
                // The first row of the first group of equal values whose cumulative
                // distribution (the rows up to the group's last, of all) reaches `p`.
                let mut first = 0;
                while first < n {
                    let mut last = first;
                    while last + 1 < n && r.order(&r.values[first], &r.values[last + 1]).is_eq() {
                        last += 1;
                    }
                    if (last + 1) as f64 / n as f64 >= p {
                        break;
                    }
                    first = last + 1;
                }
                r.values[first.min(n - 1)].clone()
            }
        };
        r.answer = Some(answer.clone());
        Ok(answer)
    }

    fn inverse(&self, _: &mut Context<'_>, _: &mut Ranked) -> Result<()> {
        // The frame is the whole partition: no row leaves it.
        Ok(())
    }
}

/// `MIN` and `MAX` as SQLite's own compute them (its order of values: NULL, numbers, texts by
/// `by`, blobs; of equal values the first), for a SELECT that names a column outside its
/// aggregates: beside SQLite's own such a column is read from the row their value came from,
/// beside any other aggregate (as in MariaDB, beside any) from the group's first row.
#[derive(Clone, Copy)]
struct MinMax {
    greatest: bool,
    by: Collation,
}

/// The value an aggregate keeps, its text's bytes as they came.
#[derive(Clone)]
enum Kept {
    Integer(i64),
    Real(f64),
    Text(Vec<u8>),
    Blob(Vec<u8>),
}

impl Kept {
    fn of(v: ValueRef<'_>) -> Option<Kept> {
        Some(match v {
            ValueRef::Null => return None,
            ValueRef::Integer(i) => Kept::Integer(i),
            ValueRef::Real(r) => Kept::Real(r),
            ValueRef::Text(t) => Kept::Text(t.to_vec()),
            ValueRef::Blob(b) => Kept::Blob(b.to_vec()),
        })
    }

    /// How `v` orders against it, as SQLite's `sqlite3MemCompare` orders them.
    fn against(&self, v: ValueRef<'_>, by: Collation) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        let class = |v: ValueRef<'_>| match v {
            ValueRef::Null => 0,
            ValueRef::Integer(_) | ValueRef::Real(_) => 1,
            ValueRef::Text(_) => 2,
            ValueRef::Blob(_) => 3,
        };
        let mine = self.as_ref();
        match (mine, v) {
            (ValueRef::Integer(a), ValueRef::Integer(b)) => a.cmp(&b),
            (ValueRef::Real(a), ValueRef::Real(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
            (ValueRef::Integer(i), ValueRef::Real(r)) => integer_against_real(i, r),
            (ValueRef::Real(r), ValueRef::Integer(i)) => integer_against_real(i, r).reverse(),
            (ValueRef::Text(a), ValueRef::Text(b)) => {
                by.compare(&String::from_utf8_lossy(a), &String::from_utf8_lossy(b))
            }
            (ValueRef::Blob(a), ValueRef::Blob(b)) => a.cmp(b),
            (a, b) => class(a).cmp(&class(b)),
        }
    }

    fn as_ref(&self) -> ValueRef<'_> {
        match self {
            Kept::Integer(i) => ValueRef::Integer(*i),
            Kept::Real(r) => ValueRef::Real(*r),
            Kept::Text(t) => ValueRef::Text(t),
            Kept::Blob(b) => ValueRef::Blob(b),
        }
    }
}

impl rusqlite::ToSql for Kept {
    fn to_sql(&self) -> Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(rusqlite::types::ToSqlOutput::Borrowed(self.as_ref()))
    }
}

/// SQLite's order of an integer and a double (`sqlite3IntFloatCompare`): exact, past the
/// range of either.
fn integer_against_real(i: i64, r: f64) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    if r.is_nan() {
        return Ordering::Greater;
    }
    if r < -9_223_372_036_854_775_808.0 {
        return Ordering::Greater;
    }
    if r >= 9_223_372_036_854_775_808.0 {
        return Ordering::Less;
    }
    match i.cmp(&(r as i64)) {
        Ordering::Equal => (i as f64).partial_cmp(&r).unwrap_or(Ordering::Equal),
        o => o,
    }
}

impl Aggregate<Option<Kept>, Option<Kept>> for MinMax {
    fn init(&self, _: &mut Context<'_>) -> Result<Option<Kept>> {
        Ok(None)
    }

    fn step(&self, ctx: &mut Context<'_>, best: &mut Option<Kept>) -> Result<()> {
        let v = ctx.get_raw(0);
        let better = match best {
            _ if v == ValueRef::Null => false,
            None => true,
            Some(b) => {
                let o = b.against(v, self.by);
                if self.greatest {
                    o.is_lt()
                } else {
                    o.is_gt()
                }
            }
        };
        if better {
            *best = Kept::of(v);
        }
        Ok(())
    }

    fn finalize(&self, _: &mut Context<'_>, best: Option<Option<Kept>>) -> Result<Option<Kept>> {
        Ok(best.flatten())
    }
}

/// The name of the aggregate [`MinMax`] registers for `MIN` (or, where `greatest`, `MAX`)
/// under collation `by` (a helper's name, which no statement may call; its text ends as
/// SQLite's own's, `…_max(`, where a rewrite looks for an aggregate in text it made).
pub fn first_row_min_max(greatest: bool, by: Collation) -> String {
    let suffix = match by {
        Collation::General => "ci",
        Collation::Bin => "bin",
        Collation::Unicode => "uca",
        Collation::Binary => "binary",
    };
    format!("mysql_{suffix}_{}", if greatest { "max" } else { "min" })
}

/// Whether `name` (upper case) is one [`first_row_min_max`] gives.
pub fn is_first_row_min_max(name: &str) -> bool {
    Collation::ALL.into_iter().any(|by| {
        [false, true]
            .into_iter()
            .any(|greatest| first_row_min_max(greatest, by).eq_ignore_ascii_case(name))
    })
}

/// Registers the aggregates on `conn`.
pub fn register(
    conn: &Connection,
    max_allowed_packet: i64,
    vars: std::sync::Arc<parking_lot::Mutex<super::variables::Variables>>,
) -> Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    for (name, spread) in [
        ("std", Spread::PopDeviation),
        ("stddev", Spread::PopDeviation),
        ("stddev_pop", Spread::PopDeviation),
        ("stddev_samp", Spread::SampleDeviation),
        ("variance", Spread::PopVariance),
        ("var_pop", Spread::PopVariance),
        ("var_samp", Spread::SampleVariance),
    ] {
        conn.create_aggregate_function(name, 1, flags, spread)?;
    }
    for (name, bits) in [
        ("bit_or", Bits::Or),
        ("bit_and", Bits::And),
        ("bit_xor", Bits::Xor),
    ] {
        conn.create_aggregate_function(name, 1, flags, bits)?;
    }
    conn.create_window_function("mysql_percentile_cont", 3, flags, Percentile::Cont)?;
    conn.create_window_function("mysql_percentile_disc", 4, flags, Percentile::Disc)?;
    for by in Collation::ALL {
        for greatest in [false, true] {
            let name = first_row_min_max(greatest, by);
            conn.create_aggregate_function(&*name, 1, flags, MinMax { greatest, by })?;
        }
    }
    conn.create_aggregate_function("mysql_decimal_sum", 1, flags, DecimalSum)?;
    conn.create_aggregate_function("mysql_double_sum", 1, flags, PlainSum::Sum)?;
    conn.create_aggregate_function("mysql_double_avg", 1, flags, PlainSum::Avg)?;
    let max_len = usize::try_from(max_allowed_packet).unwrap_or(usize::MAX);
    for (name, limited) in [
        ("mysql_group_concat", false),
        ("mysql_group_concat_limit", true),
    ] {
        conn.create_aggregate_function(
            name,
            -1,
            flags,
            GroupConcat {
                limited,
                max_len,
                vars: vars.clone(),
            },
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        register(&c, 1 << 20, Default::default()).unwrap();
        c
    }

    /// A `LIMIT` writes that many values (distinct ones where `DISTINCT`); `LIMIT 0` of some
    /// rows is an empty string, of none NULL.
    #[test]
    fn group_concat_limit_counts_the_values_written() {
        let c = conn();
        let concat = |sql: &str| -> Option<String> { c.query_row(sql, [], |r| r.get(0)).unwrap() };
        let rows = "SELECT 'a' x UNION ALL SELECT 'A' UNION ALL SELECT 'b' UNION ALL SELECT 'c'";
        assert_eq!(
            concat(&format!(
                "SELECT mysql_group_concat_limit(0, '|', 2, x) FROM ({rows})"
            )),
            Some("a|A".into())
        );
        assert_eq!(
            concat(&format!(
                "SELECT mysql_group_concat_limit(1, '|', 2, x) FROM ({rows})"
            )),
            Some("a|b".into())
        );
        assert_eq!(
            concat(&format!(
                "SELECT mysql_group_concat_limit(0, '|', 0, x) FROM ({rows})"
            )),
            Some(String::new())
        );
        assert_eq!(
            concat(&format!(
                "SELECT mysql_group_concat_limit(0, '|', 0, x) FROM ({rows}) WHERE x = 'z'"
            )),
            None
        );
    }

    /// `DISTINCT` finds strings equal as the collation does: case, accents and trailing spaces
    /// aside; the first met is kept.
    #[test]
    fn group_concat_distinct_compares_by_the_collation() {
        let c = conn();
        let concat = |rows: &str| -> String {
            c.query_row(
                &format!("SELECT mysql_group_concat(1, ',', x) FROM ({rows})"),
                [],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert_eq!(
            concat(
                "SELECT 'a ' x UNION ALL SELECT 'A' UNION ALL SELECT 'á  ' UNION ALL SELECT 'b'"
            ),
            "a ,b"
        );
        // Of several values, each compared alone: ('a', 'b') and ('ab', '') differ.
        let two: String = c
            .query_row(
                "SELECT mysql_group_concat(1, ',', x, y) FROM (SELECT 'a' x, 'b' y \
                 UNION ALL SELECT 'ab', '')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(two, "ab,ab");
    }

    /// The helpers' `MIN` and `MAX` answer what SQLite's own do, under each collation, over
    /// any values (numbers, texts equal but for case, accents or trailing spaces, blobs,
    /// NULLs), and beside them a column is read from the group's first row.
    #[test]
    fn first_row_min_max_answers_as_sqlites_own() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, TestRunner};
        let c = conn();
        for by in [Collation::General, Collation::Bin, Collation::Unicode] {
            c.create_collation(by.sqlite(), move |a: &str, b: &str| by.compare(a, b))
                .unwrap();
        }
        let value = prop_oneof![
            Just("NULL".to_string()),
            prop_oneof![Just(i64::MIN), Just(i64::MAX), -3i64..3].prop_map(|i| i.to_string()),
            prop_oneof![
                Just(9.223372036854776e18),
                Just(-9.223372036854776e18),
                -3.0f64..3.0
            ]
            .prop_map(|r| format!("{r:e}")),
            "[aAáß \t]{0,3}".prop_map(|t| format!("'{t}'")),
            proptest::collection::vec(0u8..3, 0..3).prop_map(|b| format!(
                "x'{}'",
                b.iter().map(|x| format!("0{x}")).collect::<String>()
            )),
        ];
        let rows = proptest::collection::vec((0u8..3, value), 1..12);
        let mut runner = TestRunner::new(Config {
            cases: 256,
            ..Config::default()
        });
        runner
            .run(&rows, |rows| {
                c.execute_batch("DROP TABLE IF EXISTS t; CREATE TABLE t (n INTEGER, g, v)")
                    .unwrap();
                for (n, (g, v)) in rows.iter().enumerate() {
                    c.execute_batch(&format!("INSERT INTO t VALUES ({n}, {g}, {v})"))
                        .unwrap();
                }
                for by in Collation::ALL {
                    for greatest in [false, true] {
                        let own = if greatest { "max" } else { "min" };
                        let helper = first_row_min_max(greatest, by);
                        let answers = |sql: &str| -> Vec<(String, String)> {
                            let mut q = c.prepare(sql).unwrap();
                            let rows = q.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
                            rows.map(Result::unwrap).collect()
                        };
                        let collated = format!("v COLLATE {}", by.sqlite());
                        let sql = format!(
                            "SELECT quote({own}({collated})), quote({helper}({collated})) \
                             FROM t GROUP BY g"
                        );
                        for (sqlite, helper) in answers(&sql) {
                            prop_assert_eq!(&sqlite, &helper, "{}", sql);
                        }
                        // (SQLite's own, in the same SELECT, would pick the row again.)
                        let sql = format!(
                            "SELECT n || '', (SELECT MIN(n) FROM t u WHERE u.g = t.g) || '', \
                             {helper}({collated}) FROM (SELECT * FROM t ORDER BY n) t GROUP BY g"
                        );
                        for (read, first) in answers(&sql) {
                            prop_assert_eq!(read, first, "{}", sql);
                        }
                    }
                }
                Ok(())
            })
            .unwrap();
    }

    /// `PERCENTILE_CONT` interpolates between the rows around `1 + p·(n − 1)` of the values
    /// that are not NULL, in their order (descending too); `PERCENTILE_DISC` answers the first
    /// value whose cumulative distribution reaches `p`, equal values one group (MariaDB's
    /// answers over the same rows: the evens of 0..240 beside as many NULLs).
    #[test]
    fn percentiles_answer_as_mariadb_does() {
        let c = conn();
        let rows = "WITH RECURSIVE t(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM t WHERE n < 239)";
        let one = |f: &str, p: &str, desc: u8| -> Option<f64> {
            let extra = if f == "disc" { ", 1" } else { "" };
            c.query_row(
                &format!(
                    "{rows} SELECT mysql_percentile_{f}({p}, iif(n % 2, NULL, n), {desc}{extra}) \
                     OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM t LIMIT 1"
                ),
                [],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert_eq!(one("cont", "0.25", 0), Some(59.5));
        assert_eq!(one("cont", "0.25", 1), Some(178.5));
        // (MariaDB's 214.20000000000002 too, written with its 10 decimals.)
        assert!((one("cont", "0.9", 0).unwrap() - 214.2).abs() < 1e-10);
        assert_eq!(one("disc", "0.25", 0), Some(58.0));
        assert_eq!(one("disc", "0.25", 1), Some(180.0));
        assert_eq!(one("disc", "0.9", 1), Some(24.0));
        assert_eq!(one("cont", "1", 0), Some(238.0));
        assert_eq!(one("disc", "0", 0), Some(0.0));
        // Equal values are one group: the first to reach the fraction answers.
        let tied: i64 = c
            .query_row(
                "SELECT mysql_percentile_disc(0.5, x, 0, 1) OVER () FROM \
                 (SELECT 1 x UNION ALL SELECT 2 UNION ALL SELECT 2 UNION ALL SELECT 2)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(tied, 2);
        // Text by MySQL's collation: 'B' after 'a'.
        let text: String = c
            .query_row(
                "SELECT mysql_percentile_disc(0.6, x, 0, 0) OVER () FROM \
                 (SELECT 'B' x UNION ALL SELECT 'a')",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(text, "B");
    }

    /// A fraction out of [0, 1], or one that differs between rows, is MariaDB's error; no row
    /// answers NULL.
    #[test]
    fn percentile_fraction_errors_are_mariadbs() {
        let c = conn();
        let err = |sql: &str| {
            c.query_row(sql, [], |r| r.get::<_, Option<f64>>(0))
                .unwrap_err()
                .to_string()
        };
        let said = err("SELECT mysql_percentile_cont(1.5, 1, 0) OVER () FROM (SELECT 1)");
        assert!(
            said.contains("MySQL error 4103: Argument to the percentile_cont"),
            "{said}"
        );
        let said = err("SELECT mysql_percentile_disc(x, x, 0, 1) OVER () FROM \
             (SELECT 0.1 x UNION ALL SELECT 0.2)");
        assert!(
            said.contains("MySQL error 4102: Argument to the percentile_disc"),
            "{said}"
        );
        let none: Option<f64> = c
            .query_row(
                "SELECT max(p) FROM (SELECT mysql_percentile_cont(0.5, NULL, 0) OVER () p \
                 FROM (SELECT 1))",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(none, None);
    }

    /// Doubles are added one after another, as MariaDB adds them: 0.1 ten times is
    /// 0.9999999999999999, where SQLite's compensated `sum` makes it 1.
    #[test]
    fn doubles_are_summed_without_compensation() {
        let c = conn();
        let ten = "WITH RECURSIVE t(n, x) AS (SELECT 1, 0.1 UNION ALL SELECT n + 1, 0.1 FROM t \
                   WHERE n < 10)";
        let one = |sql: &str| -> Option<f64> { c.query_row(sql, [], |r| r.get(0)).unwrap() };
        assert_eq!(one(&format!("{ten} SELECT sum(x) FROM t")), Some(1.0));
        assert_eq!(
            one(&format!("{ten} SELECT mysql_double_sum(x) FROM t")),
            Some(0.9999999999999999)
        );
        assert_eq!(
            one(&format!("{ten} SELECT mysql_double_avg(x) FROM t")),
            Some(0.9999999999999999 / 10.0)
        );
        assert_eq!(
            one(&format!("{ten} SELECT mysql_double_sum(DISTINCT x) FROM t")),
            Some(0.1)
        );
        // No value, no sum; NULLs take no part; text is read as MySQL reads it.
        assert_eq!(one("SELECT mysql_double_sum(x) FROM (SELECT NULL x)"), None);
        assert_eq!(
            one("SELECT mysql_double_avg(x) FROM (SELECT 1 x WHERE 0)"),
            None
        );
        assert_eq!(
            one(
                "SELECT mysql_double_avg(x) FROM (SELECT 1.5 x UNION ALL SELECT NULL \
                 UNION ALL SELECT '2.5x')"
            ),
            Some(2.0)
        );
    }
}
