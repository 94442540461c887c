//! Exact DECIMAL values, computed as MySQL computes them: each operand read by its exact digits,
//! `+ - *` exact, `/` to MySQL's digits (the quotient's fraction in whole 9-digit words,
//! truncated: `1/3` is 0.333333333, so `1/3*3` is 0.999999999, 1.0000 at its scale), `%` and
//! `DIV` exact, rounding half away from zero. SQLite has no such type: a value is handed back
//! to it as the integer it is where it is whole, as the double whose shortest digits are its
//! digits where one is (`0.3`: nearly every value a query meets), else as the text of its digits
//! ([`Decimal::held`]); [`Decimal::key`] orders the three alike, for comparisons and sorting.
//!
//! In: values as SQLite holds them (integers, doubles read by their shortest digits, text).
//! Out: values in the same three forms, keys, MySQL's text at a scale. Pure: `functions`
//! registers what calls it.

use num_bigint::{BigInt, Sign};
use num_traits::{Signed, ToPrimitive, Zero};

/// The most digits a DECIMAL has (MySQL's `DECIMAL_MAX_PRECISION`).
pub const MAX_PRECISION: usize = 65;

/// Digits per word of MySQL's decimals: a quotient's fraction is computed in whole words.
const WORD: u32 = 9;

/// `units / 10^scale`, exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decimal {
    units: BigInt,
    scale: u32,
}

/// How a value is handed to SQLite ([`Decimal::held`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Held {
    Integer(i64),
    Real(f64),
    Text(String),
}

fn ten(n: u32) -> BigInt {
    BigInt::from(10u8).pow(n)
}

impl Decimal {
    pub fn from_i64(i: i64) -> Decimal {
        Decimal {
            units: BigInt::from(i),
            scale: 0,
        }
    }

    /// A DECIMAL held as a double is its shortest digits (what [`Decimal::held`] made it);
    /// `None` past 65 digits before the point.
    pub fn from_f64(x: f64) -> Option<Decimal> {
        x.is_finite()
            .then(|| format!("{x}"))
            .and_then(|t| Decimal::parse(&t))
    }

    /// A DOUBLE read as a DECIMAL, as MySQL's `double2my_decimal` reads one (`DIV`, a cast):
    /// its shortest digits in a decimal's nine words of nine digits, the fraction cut to the
    /// words the whole part leaves (`1e-82` is 0); a whole part past them (`1e81`), the
    /// largest DECIMAL(65), signed.
    pub fn from_double(x: f64) -> Option<Decimal> {
        const WORDS: usize = 9;
        if !x.is_finite() {
            return None;
        }
        let digits = format!("{}", x.abs());
        let (int, frac) = digits.split_once('.').unwrap_or((&digits, ""));
        let int = int.trim_start_matches('0');
        let int_words = int.len().div_ceil(WORD as usize);
        let d = if int_words > WORDS {
            Decimal::largest(MAX_PRECISION as u32, 0)
        } else {
            let kept = frac.len().min((WORDS - int_words) * WORD as usize);
            Decimal {
                units: format!("{int}{}", &frac[..kept])
                    .parse()
                    .unwrap_or_default(),
                scale: kept as u32,
            }
        };
        Some(if x < 0.0 { d.neg() } else { d })
    }

    /// Plain digits: `-12.345`, ` 7`, `.5`, `5.` (no exponent); `None` for anything else, or
    /// for more than 65 digits before the point.
    pub fn parse(text: &str) -> Option<Decimal> {
        let s = text.trim();
        let (negative, body) = match s.as_bytes().first()? {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        let (int, frac) = body.split_once('.').unwrap_or((body, ""));
        let digits = |x: &str| x.bytes().all(|b| b.is_ascii_digit());
        if (int.is_empty() && frac.is_empty())
            || !digits(int)
            || !digits(frac)
            || int.trim_start_matches('0').len() > MAX_PRECISION
            || frac.len() > 2 * MAX_PRECISION
        {
            return None;
        }
        let all = format!("{int}{frac}");
        let units: BigInt = if all.is_empty() {
            BigInt::zero()
        } else {
            all.parse().ok()?
        };
        Some(Decimal {
            units: if negative { -units } else { units },
            scale: frac.len() as u32,
        })
    }

    /// The digits after the point this value has as written.
    #[cfg(test)]
    pub fn scale(&self) -> u32 {
        self.scale
    }

    pub fn is_zero(&self) -> bool {
        self.units.is_zero()
    }

    /// This value with `scale` digits after the point (more: exact; fewer: cut toward zero).
    fn at(&self, scale: u32) -> Decimal {
        let units = if scale >= self.scale {
            &self.units * ten(scale - self.scale)
        } else {
            &self.units / ten(self.scale - scale)
        };
        Decimal { units, scale }
    }

    /// The same value without trailing zeros after the point.
    fn normal(&self) -> Decimal {
        let mut d = self.clone();
        let t = BigInt::from(10u8);
        while d.scale > 0 && (&d.units % &t).is_zero() {
            d.units /= &t;
            d.scale -= 1;
        }
        d
    }

    pub fn add(&self, o: &Decimal) -> Decimal {
        let s = self.scale.max(o.scale);
        Decimal {
            units: self.at(s).units + o.at(s).units,
            scale: s,
        }
    }

    pub fn sub(&self, o: &Decimal) -> Decimal {
        self.add(&o.neg())
    }

    pub fn neg(&self) -> Decimal {
        Decimal {
            units: -&self.units,
            scale: self.scale,
        }
    }

    pub fn abs(&self) -> Decimal {
        Decimal {
            units: self.units.abs(),
            scale: self.scale,
        }
    }

    pub fn mul(&self, o: &Decimal) -> Decimal {
        Decimal {
            units: &self.units * &o.units,
            scale: self.scale + o.scale,
        }
    }

    /// `self / o` as MySQL's `decimal_div` makes it, the operands of `scales` digits after the
    /// point (their types'; more where a value has more) and `increment` its
    /// `div_precision_increment`: the fraction in whole 9-digit words, enough for both
    /// operands' words and the increment beyond what those words already add; truncated.
    /// `None` dividing by zero (NULL in MySQL).
    pub fn div(&self, o: &Decimal, scales: (u32, u32), increment: u32) -> Option<Decimal> {
        if o.is_zero() {
            return None;
        }
        let f1 = self.scale.max(scales.0);
        let f2 = o.scale.max(scales.1);
        let words = |f: u32| f.div_ceil(WORD) * WORD;
        let (w1, w2) = (words(f1), words(f2));
        let extra = increment.saturating_sub((w1 - f1) + (w2 - f2));
        let scale = (w1 + w2 + extra).div_ceil(WORD) * WORD;
        // units1·10^(scale - s1 + s2) / units2 = the quotient's units at `scale`.
        let shift = scale + o.scale;
        let (num, den) = if shift >= self.scale {
            (&self.units * ten(shift - self.scale), o.units.clone())
        } else {
            (self.units.clone(), &o.units * ten(self.scale - shift))
        };
        Some(Decimal {
            units: num / den,
            scale,
        })
    }

    /// `self % o`: the dividend's sign, exact (`2.5 % 0.1` is 0.0); `None` by zero.
    pub fn rem(&self, o: &Decimal) -> Option<Decimal> {
        if o.is_zero() {
            return None;
        }
        let s = self.scale.max(o.scale);
        Some(Decimal {
            units: self.at(s).units % o.at(s).units,
            scale: s,
        })
    }

    /// `self DIV o`: the quotient cut toward zero; `None` by zero.
    pub fn int_div(&self, o: &Decimal) -> Option<BigInt> {
        if o.is_zero() {
            return None;
        }
        let s = self.scale.max(o.scale);
        Some(self.at(s).units / o.at(s).units)
    }

    /// Rounded half away from zero to `scale` digits after the point (negative: to tens).
    pub fn round(&self, scale: i32) -> Decimal {
        if scale >= self.scale as i32 {
            return self.clone();
        }
        let cut = (self.scale as i32 - scale) as u32;
        let f = ten(cut);
        let (q, r) = (&self.units / &f, &self.units % &f);
        let q = if r.abs() * 2u8 >= f {
            q + self.units.signum()
        } else {
            q
        };
        Decimal::cut_to(q, scale)
    }

    /// `q` units of the last digit kept by a cut to `scale` digits (negative: tens, hundreds).
    fn cut_to(q: BigInt, scale: i32) -> Decimal {
        if scale >= 0 {
            Decimal {
                units: q,
                scale: scale as u32,
            }
        } else {
            Decimal {
                units: q * ten((-scale) as u32),
                scale: 0,
            }
        }
    }

    /// Cut toward zero to `scale` digits after the point (negative: to tens), as `TRUNCATE`.
    pub fn truncate(&self, scale: i32) -> Decimal {
        if scale >= self.scale as i32 {
            return self.clone();
        }
        let q = &self.units / ten((self.scale as i32 - scale) as u32);
        Decimal::cut_to(q, scale)
    }

    /// The greatest integer not above this value (`up`: the least not below it).
    pub fn floor_or_ceil(&self, up: bool) -> Decimal {
        let cut = self.truncate(0);
        let below = self.units.sign() == Sign::Minus;
        let fraction = cut.at(self.scale) != *self;
        let units = match (fraction, up, below) {
            (true, false, true) => cut.units - 1u8,
            (true, true, false) => cut.units + 1u8,
            _ => cut.units,
        };
        Decimal { units, scale: 0 }
    }

    /// The whole part, cut toward zero.
    pub fn whole(&self) -> BigInt {
        &self.units / ten(self.scale)
    }

    /// MySQL's text of this value at `scale` digits after the point, rounded half away from
    /// zero (`3.5000`); no negative zero.
    pub fn text(&self, scale: u32) -> String {
        let r = self.round(scale as i32).at(scale);
        let digits = r.units.abs().to_string();
        let digits = format!("{digits:0>width$}", width = scale as usize + 1);
        let (int, frac) = digits.split_at(digits.len() - scale as usize);
        let sign = if r.units.sign() == Sign::Minus {
            "-"
        } else {
            ""
        };
        if scale == 0 {
            format!("{sign}{int}")
        } else {
            format!("{sign}{int}.{frac}")
        }
    }

    /// How SQLite holds this value: an integer where it is whole and fits 64 bits, else the
    /// double whose shortest digits are its own where one is, else the text of its digits. One
    /// form per value, so SQLite groups and makes distinct equal values alike.
    pub fn held(&self) -> Held {
        let n = self.normal();
        if n.scale == 0 {
            if let Some(i) = n.units.to_i64() {
                return Held::Integer(i);
            }
        }
        let text = n.text(n.scale);
        match text.parse::<f64>() {
            Ok(x) if format!("{x}") == text => Held::Real(x),
            _ => Held::Text(text),
        }
    }

    /// A key that orders as the values do, whichever form SQLite holds them in: the sign, the
    /// point's place from the first digit, the digits, an end (each byte inverted for a
    /// negative value, so that a longer one sorts first there).
    pub fn key(&self) -> Vec<u8> {
        let n = self.normal();
        if n.units.is_zero() {
            return vec![1];
        }
        let digits = n.units.abs().to_string();
        let point = digits.len() as i64 - i64::from(n.scale) + 32768;
        let mut tail = Vec::with_capacity(digits.len() + 3);
        tail.extend_from_slice(&(point.clamp(0, 65535) as u16).to_be_bytes());
        tail.extend_from_slice(digits.as_bytes());
        tail.push(0);
        if n.units.sign() == Sign::Minus {
            std::iter::once(0).chain(tail.iter().map(|b| !b)).collect()
        } else {
            std::iter::once(2).chain(tail).collect()
        }
    }

    /// The value a [`Decimal::key`] was made of (without trailing zeros after the point):
    /// `MIN`/`MAX` of DECIMALs take the least or greatest key and give back its value.
    pub fn from_key(key: &[u8]) -> Option<Decimal> {
        let (negative, tail): (bool, Vec<u8>) = match key.split_first()? {
            (1, []) => return Some(Decimal::from_i64(0)),
            (2, rest) => (false, rest.to_vec()),
            (0, rest) => (true, rest.iter().map(|b| !b).collect()),
            _ => return None,
        };
        let (point, rest) = tail.split_at_checked(2)?;
        let point = i64::from(u16::from_be_bytes([point[0], point[1]])) - 32768;
        let digits = std::str::from_utf8(rest.strip_suffix(&[0])?).ok()?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let units: BigInt = digits.parse().ok()?;
        // `0.digits × 10^point`: `units × 10^(point - len)`.
        let shift = point - digits.len() as i64;
        let (units, scale) = if shift >= 0 {
            (units * ten(u32::try_from(shift).ok()?), 0)
        } else {
            (units, u32::try_from(-shift).ok()?)
        };
        Some(Decimal {
            units: if negative { -units } else { units },
            scale,
        })
    }

    /// The value where it is a 64-bit integer of the signedness `unsigned` says (its bits, for
    /// an unsigned one past 2^63, as SQLite holds a BIGINT UNSIGNED).
    pub fn to_bits(i: &BigInt, unsigned: bool) -> Option<i64> {
        if unsigned {
            i.to_u64().map(|u| u as i64)
        } else {
            i.to_i64()
        }
    }

    /// The digits this value has written with `scale` digits after the point.
    pub fn precision_at(&self, scale: u32) -> usize {
        let whole = self.whole().abs();
        let int = if whole.is_zero() {
            0
        } else {
            whole.to_string().len()
        };
        int + scale as usize
    }

    /// The largest DECIMAL(`precision`, `scale`): 99.99 for (4, 2).
    pub fn largest(precision: u32, scale: u32) -> Decimal {
        let precision = precision.max(scale);
        Decimal {
            units: ten(precision) - 1u8,
            scale,
        }
    }

    pub fn is_negative(&self) -> bool {
        self.units.sign() == Sign::Minus
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).unwrap()
    }

    #[test]
    fn sums_and_products_are_exact() {
        assert_eq!(d("0.1").add(&d("0.2")).held(), Held::Real(0.3));
        assert_eq!(
            d("18446744073709551615").add(&d("0.5")).held(),
            Held::Text("18446744073709551615.5".into())
        );
        assert_eq!(
            d("18446744073709551615").neg().held(),
            Held::Text("-18446744073709551615".into())
        );
        assert_eq!(d("1.50").mul(&d("2")).held(), Held::Integer(3));
        assert_eq!(d("2.5").rem(&d("0.1")).unwrap().held(), Held::Integer(0));
        assert_eq!(d("-7.5").rem(&d("2")).unwrap().text(1), "-1.5");
    }

    #[test]
    fn quotients_have_mysqls_digits() {
        let q = d("1").div(&d("3"), (0, 0), 4).unwrap();
        assert_eq!(q.text(9), "0.333333333");
        assert_eq!(q.mul(&d("3")).text(4), "1.0000");
        // A fraction of one word and an increment past what it leaves: two words.
        let q = d("1.00000000").div(&d("3"), (8, 0), 4).unwrap();
        assert_eq!(q.scale(), 18);
        assert_eq!(
            d("1").div(&d("1700000000"), (0, 0), 4).unwrap().text(4),
            "0.0000"
        );
        assert!(d("1").div(&d("0"), (0, 0), 4).is_none());
        assert_eq!(
            d("18446744073709551615")
                .int_div(&d("1000"))
                .unwrap()
                .to_string(),
            "18446744073709551"
        );
    }

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(d("2.675").text(2), "2.68");
        assert_eq!(d("-2.5").text(0), "-3");
        assert_eq!(d("-0.001").text(2), "0.00");
        assert_eq!(d("155").round(-1).text(0), "160");
        assert_eq!(d("0.5").text(4), "0.5000");
    }

    #[test]
    fn cuts_are_toward_zero_and_floors_down() {
        assert_eq!(d("-2.79").truncate(1).text(1), "-2.7");
        assert_eq!(d("1999").truncate(-2).text(0), "1900");
        assert_eq!(d("-2.5").floor_or_ceil(false).text(0), "-3");
        assert_eq!(d("-2.5").floor_or_ceil(true).text(0), "-2");
        assert_eq!(
            d("9223372036854775807.5").floor_or_ceil(true).text(0),
            "9223372036854775808"
        );
        assert_eq!(d("3").floor_or_ceil(true).text(0), "3");
    }

    #[test]
    fn keys_order_as_values() {
        let values = [
            "-18446744073709551615.5",
            "-12.3",
            "-12",
            "-0.5",
            "0",
            "0.25",
            "0.3",
            "12",
            "12.3",
            "9223372036854775808",
            "18446744073709551615",
        ];
        let keys: Vec<Vec<u8>> = values.iter().map(|v| d(v).key()).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);
        assert_eq!(d("1.50").key(), d("1.5").key());
        for v in values
            .iter()
            .chain(&["0.000123", "-0.5", "1200", "-99999999999999999999.99"])
        {
            let back = Decimal::from_key(&d(v).key()).unwrap();
            assert_eq!(back.normal(), d(v).normal(), "{v}");
        }
        assert_eq!(Decimal::from_key(&[7]), None);
        assert_eq!(Decimal::from_key(&[2, 0x80]), None);
    }

    #[test]
    fn values_are_held_in_one_form_each() {
        assert_eq!(d("2.000").held(), Held::Integer(2));
        assert_eq!(d("-0.0").held(), Held::Integer(0));
        assert_eq!(
            d("0.30000000000000001").held(),
            Held::Text("0.30000000000000001".into())
        );
        assert_eq!(Decimal::from_f64(0.1).unwrap(), d("0.1"));
        // MariaDB 10.11's `x DIV 1e60`, `1 DIV x`: nine words of nine digits, then the largest.
        let text = |x: f64, scale: u32| Decimal::from_double(x).unwrap().text(scale);
        assert_eq!(text(1.5e80, 0), format!("15{}", "0".repeat(79)));
        assert_eq!(text(-1e300, 0), format!("-{}", "9".repeat(65)));
        assert_eq!(text(1e81, 0), "9".repeat(65));
        assert_eq!(text(1e-81, 81), format!("0.{}1", "0".repeat(80)));
        assert!(Decimal::from_double(1e-82).unwrap().is_zero());
        assert!(Decimal::from_double(f64::NAN).is_none());
        assert!(Decimal::from_f64(1e70).is_none());
        assert!(Decimal::parse("1e3").is_none());
        assert!(Decimal::parse("abc").is_none());
    }
}
