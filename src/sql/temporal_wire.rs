//! Temporal values on the wire: a DATE, DATETIME or TIME column's value, which SQLite holds as
//! MySQL's text (`2024-03-05 12:34:56`), written as the column's type asks. The text protocol
//! sends the text itself; the binary protocol (server-side prepared statements) sends MySQL's
//! binary form, a length byte and the fields (`MYSQL_TIME` as the protocol documents it), which
//! the client decodes by the column's type.

use std::io::{self, Write};

use opensrv_mysql::{Column, ToMysqlValue};

use super::typing::Declared;

/// A temporal value's text and its binary form, each sent where its protocol asks for it.
pub struct Temporal<'a> {
    text: &'a str,
    binary: Vec<u8>,
}

impl<'a> Temporal<'a> {
    /// `text` as a value of `kind` (a temporal one); `None` where it is not one (the caller
    /// sends NULL: a binary temporal column has no room for anything else).
    pub fn new(text: &'a str, kind: Declared) -> Option<Self> {
        binary(text, kind).map(|binary| Temporal { text, binary })
    }
}

impl ToMysqlValue for Temporal<'_> {
    fn to_mysql_text<W: Write>(&self, w: &mut W) -> io::Result<()> {
        self.text.to_mysql_text(w)
    }

    fn to_mysql_bin<W: Write>(&self, w: &mut W, _c: &Column) -> io::Result<()> {
        w.write_all(&self.binary)
    }
}

/// `text`'s binary form as a value of `kind`, `None` where it is not one.
fn binary(text: &str, kind: Declared) -> Option<Vec<u8>> {
    let t = text.trim();
    match kind {
        Declared::Date => {
            let (y, mo, d) = date(t)?;
            Some(date_time(y, mo, d, 0, 0, 0, 0))
        }
        Declared::DateTime => {
            let (day, time) = t.split_once([' ', 'T']).unwrap_or((t, "00:00:00"));
            let (y, mo, d) = date(day)?;
            let (h, mi, s, us) = clock(time)?;
            (h < 24).then(|| date_time(y, mo, d, h as u8, mi, s, us))
        }
        Declared::Time => {
            let (negative, t) = match t.strip_prefix('-') {
                Some(rest) => (true, rest),
                None => (false, t),
            };
            let (h, mi, s, us) = clock(t)?;
            Some(time(negative, h, mi, s, us))
        }
        Declared::Decimal(_) | Declared::Double(_) | Declared::Float => None,
    }
}

/// `YYYY-MM-DD` (MySQL's text of a DATE; zeros allowed, as MySQL's zero dates).
fn date(t: &str) -> Option<(u16, u8, u8)> {
    let mut parts = t.splitn(3, '-');
    let y = parts.next()?.parse::<u16>().ok()?;
    let m = parts.next()?.parse::<u8>().ok()?;
    let d = parts.next()?.parse::<u8>().ok()?;
    (y <= 9999 && m <= 12 && d <= 31).then_some((y, m, d))
}

/// `h:mm:ss[.ffffff]` (hours of a TIME may exceed 24).
fn clock(t: &str) -> Option<(u32, u8, u8, u32)> {
    let (hms, fraction) = t.split_once('.').unwrap_or((t, ""));
    let mut parts = hms.splitn(3, ':');
    let h = parts.next()?.parse::<u32>().ok()?;
    let m = parts.next()?.parse::<u8>().ok()?;
    let s = parts.next()?.parse::<u8>().ok()?;
    if m > 59 || s > 59 || fraction.len() > 6 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let us = format!("{fraction:0<6}").parse::<u32>().ok()?;
    Some((h, m, s, us))
}

/// A DATE's or DATETIME's binary form: the shortest of 0 (all zero), 4 (the date), 7 (and the
/// time) and 11 (and the microseconds) bytes after the length.
fn date_time(y: u16, mo: u8, d: u8, h: u8, mi: u8, s: u8, us: u32) -> Vec<u8> {
    let mut b = vec![0u8];
    if (y, mo, d, h, mi, s, us) == (0, 0, 0, 0, 0, 0, 0) {
        return b;
    }
    b.extend(y.to_le_bytes());
    b.extend([mo, d]);
    if (h, mi, s, us) != (0, 0, 0, 0) {
        b.extend([h, mi, s]);
        if us != 0 {
            b.extend(us.to_le_bytes());
        }
    }
    b[0] = (b.len() - 1) as u8;
    b
}

/// A TIME's binary form: 0, 8 or 12 bytes after the length (sign, days, hours, minutes,
/// seconds, microseconds).
fn time(negative: bool, h: u32, mi: u8, s: u8, us: u32) -> Vec<u8> {
    let mut b = vec![0u8];
    if (h, mi, s, us) == (0, 0, 0, 0) {
        return b;
    }
    b.push(u8::from(negative));
    b.extend((h / 24).to_le_bytes());
    b.extend([(h % 24) as u8, mi, s]);
    if us != 0 {
        b.extend(us.to_le_bytes());
    }
    b[0] = (b.len() - 1) as u8;
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind in MySQL's binary form, at its shortest, and NULL for text that is none.
    #[test]
    fn temporals_take_mysqls_binary_form() {
        assert_eq!(
            binary("2024-03-05", Declared::Date),
            Some(vec![4, 0xe8, 0x07, 3, 5])
        );
        assert_eq!(binary("0000-00-00", Declared::Date), Some(vec![0]));
        assert_eq!(
            binary("2024-03-05 12:34:56", Declared::DateTime),
            Some(vec![7, 0xe8, 0x07, 3, 5, 12, 34, 56])
        );
        assert_eq!(
            binary("2024-03-05 00:00:00", Declared::DateTime),
            Some(vec![4, 0xe8, 0x07, 3, 5])
        );
        assert_eq!(
            binary("2024-03-05 12:34:56.5", Declared::DateTime),
            Some(vec![11, 0xe8, 0x07, 3, 5, 12, 34, 56, 0x20, 0xa1, 0x07, 0])
        );
        assert_eq!(
            binary("-838:59:59", Declared::Time),
            Some(vec![8, 1, 34, 0, 0, 0, 22, 59, 59])
        );
        assert_eq!(
            binary("01:02:03.000001", Declared::Time),
            Some(vec![12, 0, 0, 0, 0, 0, 1, 2, 3, 1, 0, 0, 0])
        );
        assert_eq!(binary("00:00:00", Declared::Time), Some(vec![0]));
        for (text, kind) in [
            ("2024", Declared::Date),
            ("x", Declared::DateTime),
            ("2024-03-05 25:00:00", Declared::DateTime),
            ("1:2", Declared::Time),
            ("1:02:03.1234567", Declared::Time),
        ] {
            assert_eq!(binary(text, kind), None, "{text}");
        }
    }
}
