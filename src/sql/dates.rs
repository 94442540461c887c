//! MySQL's date and time functions and its interval arithmetic, by MySQL's rules: values are read
//! as MySQL reads them (`str_to_datetime`, `number_to_datetime`, `str_to_time`), kept as their
//! fields (so that the zero parts the default `sql_mode` allows, `2024-00-05`, survive), and
//! written in MySQL's forms (`YYYY-MM-DD`, `YYYY-MM-DD HH:MM:SS[.f]`, `[-]HH:MM:SS[.f]`) with
//! as many fractional digits as MySQL shows (the value's fsp).
//!
//! SQLite carries every temporal value as that text: a function here reads its arguments back
//! from it. Where MySQL gives NULL (with a warning) pinbad gives NULL: a value that does not read
//! as a date, a result outside years 1 to 9999, a DATETIME outside the TIMESTAMP range for
//! `UNIX_TIMESTAMP`/`FROM_UNIXTIME`.
//!
//! `statement` rewrites `x + INTERVAL n UNIT`, `DATE_ADD`, `DATE_SUB`, `ADDDATE`, `SUBDATE` and
//! `TIMESTAMPADD` to `mysql_date_add(x, n, 'UNIT')`, and the unit argument of `TIMESTAMPDIFF`
//! and `EXTRACT` to a string. As MySQL: a date plus days, weeks, months, quarters or years is a
//! date, anything else a datetime; a month added to the 31st ends on the month's last day.
//!
//! The session's time zone is read in one place, [`zone_offset`]: `FROM_UNIXTIME`,
//! `UNIX_TIMESTAMP`, `NOW`, `CURDATE` and `CURTIME` are local to it, the `UTC_*` functions not.

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, Error, Result};

use super::functions::{number, text, Session};

/// What a temporal value is: it decides how the value is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Date,
    DateTime,
    Time,
}

/// A temporal value as MySQL holds one (`MYSQL_TIME`): its fields, zero parts allowed, and the
/// fractional digits it shows. A TIME keeps its hours whole (up to 838) and its sign in `neg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Tm {
    pub kind: Kind,
    pub neg: bool,
    pub y: i64,
    pub m: u32,
    pub d: u32,
    pub h: u32,
    pub mi: u32,
    pub s: u32,
    pub us: u32,
    pub fsp: u8,
}

/// The largest TIME: 838:59:59 (MySQL clips to it).
const TIME_MAX_US: i64 = (838 * 3600 + 59 * 60 + 59) * 1_000_000;

/// The last second a TIMESTAMP holds (`UNIX_TIMESTAMP`, `FROM_UNIXTIME`): 2038-01-19 03:14:07.
const TIMESTAMP_MAX: i64 = 2_147_483_647;

/// The session's time zone (`@@time_zone`) as seconds east of UTC: the one place the date
/// functions read it (`NOW()`, `CURDATE()`, `FROM_UNIXTIME()` answer local times,
/// `UNIX_TIMESTAMP(d)` reads one).
pub(super) fn zone_offset(session: &Session) -> i64 {
    session.vars.lock().offset
}

impl Tm {
    fn zero(kind: Kind) -> Tm {
        Tm {
            kind,
            neg: false,
            y: 0,
            m: 0,
            d: 0,
            h: 0,
            mi: 0,
            s: 0,
            us: 0,
            fsp: 0,
        }
    }

    /// Whether month or day is 0 (`2024-00-05`, `0000-00-00`): shown, but not a day to count from.
    fn zero_part(&self) -> bool {
        self.m == 0 || self.d == 0
    }

    /// Days since 1970-01-01; `None` for a date with a zero part.
    fn day(&self) -> Option<i64> {
        (!self.zero_part()).then(|| days(self.y, self.m, self.d))
    }

    /// Microseconds of the time of day (a TIME's whole signed length).
    fn time_us(&self) -> i64 {
        let us = ((i64::from(self.h) * 60 + i64::from(self.mi)) * 60 + i64::from(self.s))
            * 1_000_000
            + i64::from(self.us);
        if self.neg {
            -us
        } else {
            us
        }
    }

    /// Microseconds since 1970-01-01 00:00:00 of a date or datetime; `None` for a zero part.
    fn micros(&self) -> Option<i64> {
        Some(self.day()? * 86_400_000_000 + self.time_us())
    }

    /// The date or datetime `us` microseconds after 1970-01-01, if its year is 1 to 9999.
    fn at(us: i64, kind: Kind, fsp: u8) -> Option<Tm> {
        let (day, rem) = (us.div_euclid(86_400_000_000), us.rem_euclid(86_400_000_000));
        let (y, m, d) = civil(day);
        if !(1..=9999).contains(&y) {
            return None;
        }
        let secs = rem / 1_000_000;
        Some(Tm {
            kind,
            neg: false,
            y,
            m,
            d,
            h: (secs / 3600) as u32,
            mi: (secs / 60 % 60) as u32,
            s: (secs % 60) as u32,
            us: if kind == Kind::Date {
                0
            } else {
                (rem % 1_000_000) as u32
            },
            fsp: if kind == Kind::Date { 0 } else { fsp },
        })
    }

    /// The TIME `us` microseconds long, clipped to ±838:59:59 as MySQL clips it.
    fn time(us: i64, fsp: u8) -> Tm {
        let a = us.unsigned_abs().min(TIME_MAX_US as u64) as i64;
        let secs = a / 1_000_000;
        Tm {
            kind: Kind::Time,
            neg: us < 0 && a != 0,
            h: (secs / 3600) as u32,
            mi: (secs / 60 % 60) as u32,
            s: (secs % 60) as u32,
            us: (a % 1_000_000) as u32,
            fsp,
            ..Tm::zero(Kind::Time)
        }
    }

    fn as_kind(mut self, kind: Kind) -> Tm {
        if kind == Kind::Date {
            (self.h, self.mi, self.s, self.us, self.fsp) = (0, 0, 0, 0, 0);
        }
        if kind == Kind::Time && self.kind != Kind::Time {
            (self.y, self.m, self.d) = (0, 0, 0);
        }
        self.kind = kind;
        self
    }

    /// The value as MySQL writes it.
    pub(super) fn shown(&self) -> String {
        let frac = if self.fsp > 0 {
            format!(".{:06}", self.us)[..=self.fsp as usize].to_string()
        } else {
            String::new()
        };
        match self.kind {
            Kind::Date => format!("{:04}-{:02}-{:02}", self.y, self.m, self.d),
            Kind::DateTime => format!(
                "{:04}-{:02}-{:02} {:02}:{:02}:{:02}{frac}",
                self.y, self.m, self.d, self.h, self.mi, self.s
            ),
            Kind::Time => format!(
                "{}{:02}:{:02}:{:02}{frac}",
                if self.neg { "-" } else { "" },
                self.h,
                self.mi,
                self.s
            ),
        }
    }

    /// Whether the fields are a date MySQL accepts: month and day in range, zero parts allowed.
    fn valid(&self) -> bool {
        self.in_range() && (self.zero_part() || self.d <= month_days(self.y, self.m))
    }

    /// Whether each part is within its range, a day up to 31 in any month (`2000-02-31`): what
    /// a comparison reads as a date ([`datetime_of_loose`]).
    fn in_range(&self) -> bool {
        (0..=9999).contains(&self.y)
            && self.m <= 12
            && self.d <= 31
            && self.h <= 23
            && self.mi <= 59
            && self.s <= 59
    }
}

/// A two-digit year as MySQL reads it: 70 to 99 are 1970 to 1999, 0 to 69 are 2000 to 2069.
fn year_2000(y: i64) -> i64 {
    match y {
        0..=69 => y + 2000,
        70..=99 => y + 1900,
        _ => y,
    }
}

/// Up to six digits after the point as microseconds, and how many there were.
fn fraction(digits: &str) -> (u32, u8) {
    let digits: String = digits
        .chars()
        .take_while(char::is_ascii_digit)
        .take(6)
        .collect();
    let n = digits.len();
    if n == 0 {
        return (0, 0);
    }
    (
        digits.parse::<u32>().unwrap_or(0) * 10u32.pow(6 - n as u32),
        n as u8,
    )
}

/// A number `YYYYMMDD[hhmmss]`, `YYMMDD[hhmmss]` or 0 as a date or datetime (MySQL's
/// `number_to_datetime`): the ranges between those forms are not dates; a day up to 31 in any
/// month is kept (the callers that need a real day filter by [`Tm::valid`]).
fn number_datetime(n: i64, us: u32, fsp: u8) -> Option<Tm> {
    if n == 0 {
        return Some(Tm {
            fsp,
            us,
            ..Tm::zero(Kind::DateTime)
        });
    }
    let (date, time, short) = match n {
        101..=991_231 => (n, None, true),
        10_000_101..=99_991_231 => (n, None, false),
        101_000_000..=991_231_235_959 => (n / 1_000_000, Some(n % 1_000_000), true),
        10_000_101_000_000..=99_991_231_235_959 => (n / 1_000_000, Some(n % 1_000_000), false),
        _ => return None,
    };
    let y = date / 10_000;
    let t = Tm {
        kind: if time.is_some() {
            Kind::DateTime
        } else {
            Kind::Date
        },
        neg: false,
        y: if short { year_2000(y) } else { y },
        m: (date / 100 % 100) as u32,
        d: (date % 100) as u32,
        h: time.map_or(0, |t| t / 10_000) as u32,
        mi: time.map_or(0, |t| t / 100 % 100) as u32,
        s: time.map_or(0, |t| t % 100) as u32,
        us: if time.is_some() { us } else { 0 },
        fsp: if time.is_some() { fsp } else { 0 },
    };
    t.in_range().then_some(t)
}

/// Text as MySQL's `str_to_datetime` reads it: `YYYY-MM-DD[ hh:mm:ss[.f]]` with any punctuation
/// between the parts (`T` before the time), a two-digit year as [`year_2000`], or digits alone
/// (`YYYYMMDD`, `YYMMDD`, `YYYYMMDDhhmmss`, `YYMMDDhhmmss`, as [`digits_datetime`] reads
/// them); what follows is ignored (MySQL
/// warns). A day up to 31 in any month is kept, as [`number_datetime`] keeps it.
fn text_datetime(s: &str) -> Option<Tm> {
    let s = s.trim_start();
    let lead = s.bytes().take_while(u8::is_ascii_digit).count();
    let rest = &s[lead..];
    if lead >= 5 && !rest.starts_with(|c: char| c.is_ascii_punctuation() && c != '.') {
        // Digits alone, with an optional fraction.
        return digits_datetime(&s[..lead], rest);
    }
    // Delimited parts: year, month, day, then hour, minute, second, then the fraction.
    let mut parts = [0i64; 6];
    let (mut n, mut at, mut year_digits) = (0, 0, 0);
    let b = s.as_bytes();
    let (mut us, mut fsp) = (0, 0);
    while n < 6 {
        let start = at;
        while at < b.len() && b[at].is_ascii_digit() && at - start < 6 {
            at += 1;
        }
        if at == start {
            break;
        }
        parts[n] = s[start..at].parse().ok()?;
        if n == 0 {
            year_digits = at - start;
        }
        n += 1;
        let Some(&c) = b.get(at) else {
            break;
        };
        if n == 6 {
            if c == b'.' {
                (us, fsp) = fraction(&s[at + 1..]);
            }
            break;
        }
        if n == 3 && (c == b' ' || c == b'T') {
            at += 1;
            while b.get(at) == Some(&b' ') {
                at += 1;
            }
        } else if c.is_ascii_punctuation() {
            at += 1;
        } else {
            break;
        }
    }
    if n < 3 {
        return None;
    }
    let t = Tm {
        kind: if n > 3 { Kind::DateTime } else { Kind::Date },
        neg: false,
        y: if year_digits <= 2 {
            year_2000(parts[0])
        } else {
            parts[0]
        },
        m: u32::try_from(parts[1]).ok()?,
        d: u32::try_from(parts[2]).ok()?,
        h: u32::try_from(parts[3]).ok()?,
        mi: u32::try_from(parts[4]).ok()?,
        s: u32::try_from(parts[5]).ok()?,
        us,
        fsp,
    };
    t.in_range().then_some(t)
}

/// Digits alone (5 or more), followed by `rest`, as MariaDB's `str_to_datetime` reads its
/// internal format: a four-digit year where there are 4, 8 or 14 and more digits, else two (of
/// the 1900s or 2000s as [`year_2000`] reads it, unless every part is 0); then two digits each
/// for the month, the day, the hours, minutes and seconds, as far as the digits go (`24030` is
/// 2024-03-00, `2403051` 2024-03-05 01:00:00, `2403051234567` 12:34:56, what follows the
/// seconds ignored; `10000000` is 1000-00-00). At least a day; a fraction only after the
/// seconds (`20240305.5` is none).
fn digits_datetime(digits: &str, rest: &str) -> Option<Tm> {
    let lead = digits.len();
    let year_digits = if lead == 4 || lead == 8 || lead >= 14 {
        4
    } else {
        2
    };
    let mut parts = [0i64; 6];
    let (mut n, mut at) = (0, 0);
    while n < 6 && at < lead {
        let len = if n == 0 { year_digits } else { 2 }.min(lead - at);
        parts[n] = digits[at..at + len].parse().ok()?;
        at += len;
        n += 1;
    }
    if n < 3 {
        return None;
    }
    let (us, fsp) = match rest.strip_prefix('.') {
        Some(f) if at == lead && n == 6 => fraction(f),
        Some(_) if at == lead => return None,
        _ => (0, 0),
    };
    let t = Tm {
        kind: if n > 3 { Kind::DateTime } else { Kind::Date },
        neg: false,
        y: if year_digits == 2 && parts.iter().any(|p| *p != 0) {
            year_2000(parts[0])
        } else {
            parts[0]
        },
        m: parts[1] as u32,
        d: parts[2] as u32,
        h: parts[3] as u32,
        mi: parts[4] as u32,
        s: parts[5] as u32,
        us,
        fsp,
    };
    t.in_range().then_some(t)
}

/// A number's whole part and its fraction as (microseconds, digits shown): a double's digits as
/// its shortest text has them (`1.5` one, as the DECIMAL literal MySQL saw), at most six, cut.
fn split_number(v: ValueRef<'_>) -> Option<(i64, u32, u8)> {
    match v {
        ValueRef::Integer(i) => Some((i, 0, 0)),
        // Past a BIGINT, the largest one (`as` saturates), as MariaDB's `Sec6` reads a double:
        // `HOUR(1.8e19)` is 838.
        ValueRef::Real(r) if r.is_finite() => {
            let shown = format!("{}", r.abs());
            let (us, fsp) = shown.split_once('.').map_or((0, 0), |(_, f)| fraction(f));
            Some((r.trunc() as i64, us, fsp))
        }
        _ => None,
    }
}

/// A value read as a date or datetime (MySQL's `get_date` of an argument).
pub(super) fn datetime_of(v: ValueRef<'_>) -> Option<Tm> {
    datetime_of_loose(v).filter(Tm::valid)
}

/// A value read as a DATETIME where a comparison reads it (MariaDB's comparisons allow invalid
/// dates): as [`datetime_of`], a day up to 31 in any month (`DATE '2000-02-28' < '2000-02-31'`
/// is 1, `TIMESTAMP '1970-01-01 00:00:00' < 231`, 2000-02-31, too).
pub(super) fn datetime_of_loose(v: ValueRef<'_>) -> Option<Tm> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(_) | ValueRef::Real(_) => {
            let (n, us, fsp) = split_number(v)?;
            if n < 0 {
                return None;
            }
            number_datetime(n, us, fsp)
        }
        ValueRef::Text(t) | ValueRef::Blob(t) => text_datetime(std::str::from_utf8(t).ok()?),
    }
}

/// `shown` (a temporal as text) with its fraction at 6 digits, or without it where it is zero.
fn auto_fraction(shown: &str) -> String {
    match shown.rsplit_once('.') {
        Some((whole, f))
            if !f.is_empty() && f.len() <= 6 && f.bytes().all(|b| b.is_ascii_digit()) =>
        {
            if f.bytes().all(|b| b == b'0') {
                whole.to_string()
            } else {
                format!("{whole}.{f:0<6}")
            }
        }
        _ => shown.to_string(),
    }
}

/// A DATETIME written as text (`YYYY-MM-DD hh:mm:ss[.f]`) with exactly `digits` fraction
/// digits, its own cut or padded with zeros; anything else (a DATE) as it is.
fn with_fraction_digits(shown: &str, digits: usize) -> String {
    let b = shown.as_bytes();
    if b.len() < 19 || b[10] != b' ' || b.get(19).is_some_and(|&c| c != b'.') {
        return shown.to_string();
    }
    let own = shown.get(20..).unwrap_or("");
    match digits {
        0 => shown[..19].to_string(),
        d => format!("{}.{:0<d$.d$}", &shown[..19], own),
    }
}

/// Whether text starts as a date does (`2024-03-05…`, `24/3/5`): a TIME context reads it as a
/// datetime and keeps its time (MySQL's `str_to_time` does the same).
fn has_date_part(s: &str) -> bool {
    let s = s.trim_start();
    let lead = s.bytes().take_while(u8::is_ascii_digit).count();
    lead > 0 && s[lead..].starts_with(['-', '/']) || (lead >= 12 && !s[lead..].starts_with(':'))
}

/// How MySQL's `str_to_time` reads text that starts as a date does: `Some(t)`, a datetime
/// whose time it keeps (`2024-03-05 12`, `9-1-1 1:2`, 12 digits or more), `t` `None` where its
/// parts are past their ranges (`2024-13-01 12:00` is NULL; a day up to 31 in any month is
/// read); `None` for text it reads as a TIME instead: a date not parted from what follows
/// (`2024-03-05x`), and a date alone where the text is a string's (`string`: the translation
/// typed it so), as MariaDB reads a string (`'2024-03-05'` is 00:20:24, the number 2024).
/// Elsewhere a date alone may be a DATE's value, held as the same text: that date at 00:00:00.
fn time_text_datetime(s: &str, string: bool) -> Option<Option<Tm>> {
    let s = s.trim();
    if !has_date_part(s) {
        return None;
    }
    // (A DATE's value is held as `YYYY-MM-DD` alone: `2024-03-05x` is a string's.)
    let date_value = !string && is_date_value(s);
    match text_datetime(s) {
        Some(t) if t.kind == Kind::DateTime || date_value => Some(Some(t)),
        Some(_) => None,
        None => {
            // A date parted from a time by spaces or a `T`, as MariaDB's
            // `is_datetime_body_candidate` finds one (the shortest date, `1-1-1`, before it).
            let parted = s.find([' ', 'T']).is_some_and(|at| {
                at >= 5
                    && s[at..]
                        .trim_start_matches([' ', 'T'])
                        .starts_with(|c: char| c.is_ascii_digit())
            });
            parted.then_some(None)
        }
    }
}

/// Whether text has a DATE value's shape, `YYYY-MM-DD` exactly, as a DATE held as text prints.
fn is_date_value(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

/// Text as MariaDB's `str_to_time` reads it: `[-][D ]hh[:mm[:ss]][.f]` (a day part where its
/// hours have two digits or more, or one and a `:` or `.`: `1 12` is 36:00:00, `1 2` and
/// `1 2x` one second),
/// `[-]hh:mm[:ss[.f]]`, or digits `[[hh]mm]ss[.f]`, what follows ignored (`12-11-28` is
/// 00:00:12); a datetime's time ([`time_text_datetime`]); hours past 838:59:59 clipped.
fn text_time(s: &str) -> Option<Tm> {
    let s = s.trim();
    if let Some(t) = time_text_datetime(s, false) {
        return t.map(|t| t.as_kind(Kind::Time));
    }
    let (whole, fsp) = text_time_us(s)?;
    let t = Tm::time(whole, fsp);
    Some(if whole.abs() > TIME_MAX_US {
        Tm { us: 0, ..t }
    } else {
        t
    })
}

/// [`text_time`]'s reading of text that is no datetime, as signed microseconds not clipped at
/// 838:59:59, and its fraction digits.
fn text_time_us(s: &str) -> Option<(i64, u8)> {
    // One sign, `-` or `+`, spaces after it (`+ 1` is 00:00:01, `-+1` no TIME).
    let (neg, s) = match (s.strip_prefix('-'), s.strip_prefix('+')) {
        (Some(rest), _) => (true, rest.trim_start()),
        (None, Some(rest)) => (false, rest.trim_start()),
        (None, None) => (false, s),
    };
    let lead = s.bytes().take_while(u8::is_ascii_digit).count();
    if lead == 0 {
        return None;
    }
    let after_day = s[lead..].trim_start_matches(' ');
    let hour_digits = after_day.bytes().take_while(u8::is_ascii_digit).count();
    let has_day = after_day.len() < s[lead..].len()
        && after_day.len() >= 2
        && (hour_digits >= 2 || hour_digits == 1 && after_day[1..].starts_with([':', '.']));
    let (day, s) = if has_day {
        (s[..lead].parse::<i64>().ok()?, after_day)
    } else {
        (0, s)
    };
    let lead = s.bytes().take_while(u8::is_ascii_digit).count();
    let colon =
        s[lead..].starts_with(':') && s[lead + 1..].starts_with(|c: char| c.is_ascii_digit());
    let (h, mi, sec, rest) = if colon {
        let mut nums = Vec::new();
        let mut rest = s;
        while nums.len() < 3 {
            let n = rest.bytes().take_while(u8::is_ascii_digit).count();
            if n == 0 {
                break;
            }
            nums.push(rest[..n].parse::<i64>().ok()?);
            rest = &rest[n..];
            match rest.strip_prefix(':') {
                Some(r) if nums.len() < 3 => rest = r,
                _ => break,
            }
        }
        nums.resize(3, 0);
        (nums[0], nums[1], nums[2], rest)
    } else if has_day {
        // After a day part, the hours.
        (s[..lead].parse::<i64>().ok()?, 0, 0, &s[lead..])
    } else {
        let n: i64 = s[..lead].parse().ok()?;
        (n / 10_000, n / 100 % 100, n % 100, &s[lead..])
    };
    if mi > 59 || sec > 59 {
        return None;
    }
    // An exponent after the time makes it a number, no TIME (`1e2`, `12:30:00e1`, `1.5E-2`;
    // `1e` is 00:00:01): MariaDB's `str_to_time`.
    let after = rest
        .strip_prefix('.')
        .map_or(rest, |f| f.trim_start_matches(|c: char| c.is_ascii_digit()));
    if let Some(e) = after.strip_prefix(['e', 'E']) {
        let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
        if digits.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
    }
    let (us, fsp) = rest.strip_prefix('.').map_or((0, 0), fraction);
    let whole = ((day * 24 + h) * 3600 + mi * 60 + sec).checked_mul(1_000_000)? + i64::from(us);
    Some((if neg { -whole } else { whole }, fsp))
}

/// A value as a comparison with a TIME reads it, as signed microseconds (the order of TIMEs:
/// their text sorts `100:00:00` before `12:00:00`): a TIME's own, or a string's or a number's
/// read as [`time_of`] reads it but not clipped at 838:59:59 (MariaDB's `'900:00:00' > TIME
/// '838:59:59'` and `8390000 > TIME '838:59:59'` are 1, a number past the integers beyond
/// every TIME); one that reads as no TIME as 00:00:00 (MySQL warns). `unsigned`: an integer
/// is a BIGINT UNSIGNED's 64 bits.
fn compared_time_us(v: ValueRef<'_>, unsigned: bool) -> i64 {
    let read = match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) if unsigned => number_time_us(i as u64, false, 0),
        ValueRef::Real(r) if r.is_finite() && r.abs() >= 1e18 => {
            Some(if r < 0.0 { -i64::MAX } else { i64::MAX })
        }
        ValueRef::Integer(_) | ValueRef::Real(_) => {
            let (n, us, _) = split_number(v).unwrap_or((0, 0, 0));
            let neg = n < 0 || matches!(v, ValueRef::Real(r) if r < 0.0);
            number_time_us(n.unsigned_abs(), neg, us)
        }
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            std::str::from_utf8(t)
                .ok()
                .and_then(|s| match time_text_datetime(s, true) {
                    Some(t) => t.map(|t| t.as_kind(Kind::Time).time_us()),
                    None => text_time_us(s.trim()).map(|(us, _)| us),
                })
        }
    };
    read.unwrap_or(0)
}

/// A DECIMAL as a comparison with a TIME reads it ([`compared_time_us`]): a number, its whole
/// part past a BIGINT's the largest one (MariaDB's `my_decimal2seconds`: `18446744073709551615.0
/// = TIME '00:00:00'` is 0 where `18446744073709551615 = TIME '00:00:00'` of the BIGINT UNSIGNED
/// is too, but `9999999999999999999.0` is beyond every TIME, not 99 seconds). Its text is the one
/// a DECIMAL too wide for a double is held as.
fn compared_decimal_time_us(v: ValueRef<'_>) -> i64 {
    let (ValueRef::Text(t) | ValueRef::Blob(t)) = v else {
        return compared_time_us(v, false);
    };
    let s = std::str::from_utf8(t).unwrap_or("").trim();
    let (neg, s) = s.strip_prefix('-').map_or((false, s), |rest| (true, rest));
    let (whole, fraction_digits) = s.split_once('.').unwrap_or((s, ""));
    let a = whole
        .parse::<u64>()
        .map_or(i64::MAX as u64, |a| a.min(i64::MAX as u64));
    number_time_us(a, neg, fraction(fraction_digits).0).unwrap_or(0)
}

/// [`number_time`] as signed microseconds, a datetime's time as its own.
fn number_time_us(a: u64, neg: bool, us: u32) -> Option<i64> {
    match number_time(a, neg, us, 0)? {
        NumberTime::DateTime(t) => Some(t.time_us()),
        NumberTime::Time(whole) => Some(if neg { -whole } else { whole }),
    }
}

/// What a number reads as where a TIME is read ([`number_time`]).
enum NumberTime {
    /// `[[hh]mm]ss[.f]`: its magnitude in microseconds, not clipped at 838:59:59 (at most
    /// `i64::MAX`).
    Time(i64),
    /// A datetime's time.
    DateTime(Tm),
}

/// A number's magnitude `a` (and `us` microseconds of `fsp` digits) as MariaDB's
/// `number_to_time` reads it: a positive number longer than 7 digits, up to the last
/// datetime's, is a datetime (`CAST(20240305 AS TIME)` is 00:00:00, `CAST(2147483647 AS TIME)`
/// NULL); any other is `[[hh]mm]ss`, `None` where its minutes or seconds pass 59 or its
/// fraction is 999999 microseconds (MariaDB 10.11 reads `19.999999` and `0.9999997e0` as no
/// TIME, NULL cast and 00:00:00 compared, where `19.999998` and `'19.999999'` are ones).
fn number_time(a: u64, neg: bool, us: u32, fsp: u8) -> Option<NumberTime> {
    if !neg && (10_000_000..=99_991_231_235_959).contains(&a) {
        return number_datetime(a as i64, us, fsp)
            .filter(Tm::valid)
            .map(|t| NumberTime::DateTime(t.as_kind(Kind::Time)));
    }
    if a / 100 % 100 > 59 || a % 100 > 59 || us == 999_999 {
        return None;
    }
    let secs = u128::from(a / 10_000 * 3600 + a / 100 % 100 * 60 + a % 100);
    let whole = (secs * 1_000_000 + u128::from(us)).min(i64::MAX as u128);
    Some(NumberTime::Time(whole as i64))
}

/// A value read as a TIME (MySQL's `get_time` of an argument): a number is `[[hh]mm]ss[.f]`, or
/// a datetime's time when it is longer than 7 digits.
pub(super) fn time_of(v: ValueRef<'_>) -> Option<Tm> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(_) | ValueRef::Real(_) => {
            let (n, us, fsp) = split_number(v)?;
            let neg = n < 0 || matches!(v, ValueRef::Real(r) if r < 0.0);
            // A time past 838:59:59 is clipped there, its fraction dropped (`CAST(8395959 AS
            // TIME)`; `CAST(8395999 AS TIME)` is NULL).
            match number_time(n.unsigned_abs(), neg, us, fsp)? {
                NumberTime::DateTime(t) => Some(t),
                NumberTime::Time(whole) if whole > TIME_MAX_US => {
                    let t = Tm::time(if neg { -TIME_MAX_US } else { TIME_MAX_US }, fsp);
                    Some(Tm { us: 0, ..t })
                }
                NumberTime::Time(whole) => Some(Tm::time(if neg { -whole } else { whole }, fsp)),
            }
        }
        ValueRef::Text(t) | ValueRef::Blob(t) => text_time(std::str::from_utf8(t).ok()?),
    }
}

/// A number read as a time interval, `[[h…]hh]mm]ss[.f]`, its hours not clipped at 838 (MariaDB's
/// `EXTRACT` of a DAY or time unit: `EXTRACT(DAY FROM 20240305)` is 2024 hours' 84 days);
/// `None` for a number as long as a datetime, or minutes or seconds past 59.
fn interval_of(v: ValueRef<'_>) -> Option<Tm> {
    if !matches!(v, ValueRef::Integer(_) | ValueRef::Real(_)) {
        return None;
    }
    let (n, us, fsp) = split_number(v)?;
    let a = n.unsigned_abs();
    if a >= 10_000_000_000 {
        return None;
    }
    let (mi, s) = ((a / 100 % 100) as u32, (a % 100) as u32);
    if mi > 59 || s > 59 {
        return None;
    }
    let neg = n < 0 || matches!(v, ValueRef::Real(r) if r < 0.0);
    Some(Tm {
        kind: Kind::Time,
        neg: neg && (a != 0 || us != 0),
        h: (a / 10_000) as u32,
        mi,
        s,
        us,
        fsp,
        ..Tm::zero(Kind::Time)
    })
}

/// A TIME where a date is read: today (in the zone `offset` seconds east) at that time, hours
/// past 24 into the days after and a negative TIME into the days before, as MariaDB reads one
/// (`CAST(TIME '12:34:56' AS DATE)` is today, `LAST_DAY(TIME …)` this month's last day).
fn time_today(t: &Tm, now: i64, offset: i64) -> Option<Tm> {
    let day = (now + offset * 1_000_000).div_euclid(86_400_000_000);
    Tm::at(day * 86_400_000_000 + t.time_us(), Kind::DateTime, t.fsp)
}

/// Days since 1970-01-01 as (year, month, day), proleptic Gregorian (Howard Hinnant's
/// `civil_from_days`).
pub(super) fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// (year, month, day) as days since 1970-01-01 (`days_from_civil`).
pub(super) fn days(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// MySQL's day number (`calc_daynr`, what `TO_DAYS` gives): defined for zero parts too, as
/// `DATE_FORMAT` uses it for `2024-00-05`.
fn daynr(y: i64, m: u32, d: u32) -> i64 {
    if y == 0 && m == 0 {
        return 0;
    }
    let (m, d) = (i64::from(m), i64::from(d));
    let mut y2 = y;
    let mut sum = 365 * y + 31 * (m - 1) + d;
    if m <= 2 {
        y2 -= 1;
    } else {
        sum -= (m * 4 + 23) / 10;
    }
    sum + y2.div_euclid(4) - ((y2.div_euclid(100) + 1) * 3).div_euclid(4)
}

/// 0 = Monday (`sunday_first`: 0 = Sunday) of MySQL day number `nr`.
fn weekday(nr: i64, sunday_first: bool) -> i64 {
    (nr + 5 + i64::from(sunday_first)).rem_euclid(7)
}

/// A leap year as MySQL counts them (`calc_days_in_year`): year 0 is none.
fn leap(y: i64) -> bool {
    y != 0 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)
}

fn year_days(y: i64) -> i64 {
    if leap(y) {
        366
    } else {
        365
    }
}

fn month_days(y: i64, m: u32) -> u32 {
    match m {
        2 if leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

const MONDAY_FIRST: u32 = 1;
const WEEK_YEAR: u32 = 2;
const FIRST_WEEKDAY: u32 = 4;

/// `WEEK(d, mode)`'s mode as `calc_week`'s flags (MySQL's `week_mode`).
fn week_mode(mode: i64) -> u32 {
    let mut f = (mode & 7) as u32;
    if f & MONDAY_FIRST == 0 {
        f ^= FIRST_WEEKDAY;
    }
    f
}

/// The week of `t` and the year it belongs to, by `calc_week`'s flags (MySQL's algorithm).
fn calc_week(t: &Tm, flags: u32) -> (i64, i64) {
    let nr = daynr(t.y, t.m, t.d);
    let mut first = daynr(t.y, 1, 1);
    let monday_first = flags & MONDAY_FIRST != 0;
    let mut week_year = flags & WEEK_YEAR != 0;
    let first_weekday = flags & FIRST_WEEKDAY != 0;
    let mut wd = weekday(first, !monday_first);
    let mut year = t.y;
    let late = |wd: i64| (first_weekday && wd != 0) || (!first_weekday && wd >= 4);
    if t.m == 1 && i64::from(t.d) <= 7 - wd {
        if !week_year && late(wd) {
            return (0, year);
        }
        week_year = true;
        year -= 1;
        let n = year_days(year);
        first -= n;
        wd = (wd + 53 * 7 - n).rem_euclid(7);
    }
    let d = if late(wd) {
        nr - (first + (7 - wd))
    } else {
        nr - (first - wd)
    };
    if week_year && d >= 52 * 7 {
        let wd = (wd + year_days(year)).rem_euclid(7);
        if (!first_weekday && wd < 4) || (first_weekday && wd == 0) {
            return (1, year + 1);
        }
    }
    (d / 7 + 1, year)
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Monday first, as MySQL's `weekday` numbers them.
const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

fn ordinal(d: u32) -> String {
    let suffix = match (d % 10, d % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{d}{suffix}")
}

/// MySQL's `DATE_FORMAT`/`TIME_FORMAT` (`time`: only the time's specifiers, NULL for the others,
/// hours whole): every specifier MySQL knows; any other character after `%` is itself.
pub(super) fn format(t: &Tm, fmt: &str, time: bool) -> Option<String> {
    let nr = daynr(t.y, t.m, t.d);
    let hour12 = (t.h % 24 + 11) % 12 + 1;
    let ampm = if t.h % 24 < 12 { "AM" } else { "PM" };
    let mut out = String::new();
    if time && t.neg {
        out.push('-');
    }
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let Some(spec) = chars.next() else {
            out.push('%');
            break;
        };
        if time && "aDjMWbUuVvXxYycdemw".contains(spec) {
            return None;
        }
        match spec {
            'Y' => out.push_str(&format!("{:04}", t.y)),
            'y' => out.push_str(&format!("{:02}", t.y % 100)),
            'm' => out.push_str(&format!("{:02}", t.m)),
            'c' => out.push_str(&t.m.to_string()),
            'd' => out.push_str(&format!("{:02}", t.d)),
            'e' => out.push_str(&t.d.to_string()),
            'D' => out.push_str(&ordinal(t.d)),
            'M' | 'b' => {
                let name = MONTHS.get(t.m.checked_sub(1)? as usize)?;
                out.push_str(if spec == 'M' { name } else { &name[..3] });
            }
            // A weekday needs a year or a month (MySQL refuses it for the zero date).
            'W' | 'a' | 'w' if t.y == 0 && t.m == 0 => return None,
            'W' | 'a' => {
                let name = DAYS[weekday(nr, false) as usize];
                out.push_str(if spec == 'W' { name } else { &name[..3] });
            }
            'w' => out.push_str(&weekday(nr, true).to_string()),
            'j' => out.push_str(&format!("{:03}", nr - daynr(t.y, 1, 1) + 1)),
            'U' => out.push_str(&format!("{:02}", calc_week(t, FIRST_WEEKDAY).0)),
            'u' => out.push_str(&format!("{:02}", calc_week(t, MONDAY_FIRST).0)),
            'V' => out.push_str(&format!("{:02}", calc_week(t, WEEK_YEAR | FIRST_WEEKDAY).0)),
            'v' => out.push_str(&format!("{:02}", calc_week(t, MONDAY_FIRST | WEEK_YEAR).0)),
            'X' => out.push_str(&format!("{:04}", calc_week(t, WEEK_YEAR | FIRST_WEEKDAY).1)),
            'x' => out.push_str(&format!("{:04}", calc_week(t, MONDAY_FIRST | WEEK_YEAR).1)),
            'H' => out.push_str(&format!("{:02}", t.h)),
            'k' => out.push_str(&t.h.to_string()),
            'h' | 'I' => out.push_str(&format!("{hour12:02}")),
            'l' => out.push_str(&hour12.to_string()),
            'i' => out.push_str(&format!("{:02}", t.mi)),
            's' | 'S' => out.push_str(&format!("{:02}", t.s)),
            'f' => out.push_str(&format!("{:06}", t.us)),
            'p' => out.push_str(ampm),
            'r' => out.push_str(&format!("{hour12:02}:{:02}:{:02} {ampm}", t.mi, t.s)),
            'T' => out.push_str(&format!("{:02}:{:02}:{:02}", t.h, t.mi, t.s)),
            other => out.push(other),
        }
    }
    Some(out)
}

/// The type `STR_TO_DATE` gives for a format (MySQL's `get_date_time_result_type`): DATETIME
/// where it names date and time parts, DATE or TIME where only one, and six digits with `%f`.
pub(super) fn format_kind(fmt: &str) -> (Kind, u8) {
    let (mut date, mut time, mut frac) = (false, false, false);
    let mut chars = fmt.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            continue;
        }
        match chars.next() {
            Some(
                'a' | 'b' | 'c' | 'D' | 'd' | 'e' | 'j' | 'M' | 'm' | 'U' | 'u' | 'V' | 'v' | 'W'
                | 'w' | 'X' | 'x' | 'Y' | 'y',
            ) => date = true,
            Some('f') => {
                time = true;
                frac = true;
            }
            Some('H' | 'h' | 'I' | 'i' | 'k' | 'l' | 'p' | 'r' | 'S' | 's' | 'T') => time = true,
            _ => {}
        }
    }
    let kind = match (date, time) {
        (true, false) => Kind::Date,
        (false, true) => Kind::Time,
        _ => Kind::DateTime,
    };
    (kind, if frac { 6 } else { 0 })
}

/// The index of the name in `names` that `input` starts with (case-insensitive), full names
/// first, then their first three letters; the input after it.
fn name<'a>(input: &'a str, names: &[&str]) -> Option<(usize, &'a str)> {
    for full in [true, false] {
        for (i, n) in names.iter().enumerate() {
            let n = if full { n } else { &n[..3] };
            if input.len() >= n.len() && input[..n.len()].eq_ignore_ascii_case(n) {
                return Some((i, &input[n.len()..]));
            }
        }
    }
    None
}

/// The fields `STR_TO_DATE` reads, before they are checked.
#[derive(Default)]
struct Read {
    y: i64,
    m: i64,
    d: i64,
    h: i64,
    mi: i64,
    s: i64,
    us: u32,
    yday: i64,
    usa: bool,
    pm: Option<bool>,
    /// `%W`, `%a`, `%w`: 1 (Monday) to 7 (Sunday); 0 where none was read.
    wday: i64,
    /// `%U %u %V %v`: the week read (`None`: none), whether its weeks start on Sunday
    /// (`%U %V`), and whether it is a strict one (`%V %v`, counted in the `%X`/`%x` year).
    week: Option<i64>,
    sunday_first: bool,
    strict: bool,
    /// `%X` or `%x`: the year of the strict weeks, and whether its weeks start on Sunday (`%X`).
    week_year: Option<(i64, bool)>,
}

/// Up to `max` digits of `input` as a number (MySQL's `my_strtoll10` over a bounded length);
/// `None` where there is none.
fn digits(input: &mut &str, max: usize) -> Option<i64> {
    let (neg, body) = match input.strip_prefix('-') {
        Some(b) if max > 1 => (true, b),
        _ => (false, *input),
    };
    let n = body
        .bytes()
        .take(max - usize::from(neg))
        .take_while(u8::is_ascii_digit)
        .count();
    if n == 0 {
        return None;
    }
    let v: i64 = body[..n].parse().ok()?;
    *input = &body[n..];
    Some(if neg { -v } else { v })
}

/// Reads `input` by `fmt` into `r` (MySQL's `extract_date_time`): spaces before each part of the
/// input are skipped; the input may end before the format does.
fn extract<'a>(mut input: &'a str, fmt: &str, r: &mut Read) -> Option<&'a str> {
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        input = input.trim_start();
        if input.is_empty() {
            break;
        }
        if c.is_whitespace() {
            continue;
        }
        if c != '%' || chars.peek().is_none() {
            input = input.strip_prefix(c)?;
            continue;
        }
        let spec = chars.next()?;
        match spec {
            'Y' => {
                let before = input.len();
                r.y = digits(&mut input, 4)?;
                if before - input.len() <= 2 {
                    r.y = year_2000(r.y);
                }
            }
            'y' => r.y = year_2000(digits(&mut input, 2)?),
            'm' | 'c' => r.m = digits(&mut input, 2)?,
            'd' | 'e' => r.d = digits(&mut input, 2)?,
            'D' => {
                r.d = digits(&mut input, 2)?;
                input = input.get(2.min(input.len())..)?;
            }
            'M' | 'b' => {
                let (i, rest) = name(input, &MONTHS)?;
                r.m = i as i64 + 1;
                input = rest;
            }
            'W' | 'a' => {
                let (i, rest) = name(input, &DAYS)?;
                r.wday = i as i64 + 1;
                input = rest;
            }
            // MySQL reads `%w` on the same scale as `%W`: Sunday (0) is 7.
            'w' => {
                let n = digits(&mut input, 1)?;
                if !(0..=6).contains(&n) {
                    return None;
                }
                r.wday = if n == 0 { 7 } else { n };
            }
            'U' | 'u' | 'V' | 'v' => {
                r.sunday_first = matches!(spec, 'U' | 'V');
                r.strict = matches!(spec, 'V' | 'v');
                let n = digits(&mut input, 2)?;
                if n < 0 || (r.strict && n == 0) || n > 53 {
                    return None;
                }
                r.week = Some(n);
            }
            'X' | 'x' => r.week_year = Some((digits(&mut input, 4)?, spec == 'X')),
            'j' => r.yday = digits(&mut input, 3)?,
            'H' | 'k' => r.h = digits(&mut input, 2)?,
            'h' | 'I' | 'l' => {
                r.h = digits(&mut input, 2)?;
                r.usa = true;
            }
            'i' => r.mi = digits(&mut input, 2)?,
            's' | 'S' => r.s = digits(&mut input, 2)?,
            'f' => {
                let n = input.bytes().take(6).take_while(u8::is_ascii_digit).count();
                r.us = fraction(&input[..n]).0;
                input = &input[n..];
            }
            'p' => {
                if !r.usa || input.len() < 2 {
                    return None;
                }
                let word = input.get(..2)?;
                r.pm = Some(if word.eq_ignore_ascii_case("PM") {
                    true
                } else if word.eq_ignore_ascii_case("AM") {
                    false
                } else {
                    return None;
                });
                input = &input[2..];
            }
            'r' => input = extract(input, "%I:%i:%S %p", r)?,
            'T' => input = extract(input, "%H:%i:%S", r)?,
            other => input = input.strip_prefix(other)?,
        }
    }
    Some(input)
}

/// The day a week and a weekday name (MySQL's `extract_date_time`): `%V` needs `%X` and `%v`
/// `%x` (weeks starting on the same day), `%U` and `%u` count in `%Y`'s year and take no `%X`
/// or `%x`. The first week is the one holding the year's first Sunday (`%U %V`), or its first
/// Monday-started week with 4 days or more in the year (`%u %v`); `None` where MySQL gives NULL.
fn week_day(r: &Read, week: i64) -> Option<(i64, i64, i64)> {
    let year = match (r.strict, r.week_year) {
        (true, Some((y, sunday))) if y >= 0 && sunday == r.sunday_first => y,
        (true, _) | (false, Some(_)) => return None,
        (false, None) => r.y,
    };
    let first = daynr(year, 1, 1);
    let jan1 = weekday(first, r.sunday_first);
    let day = if r.sunday_first {
        first + if jan1 == 0 { 0 } else { 7 } - jan1 + (week - 1) * 7 + r.wday % 7
    } else {
        first + if jan1 <= 3 { 0 } else { 7 } - jan1 + (week - 1) * 7 + r.wday - 1
    };
    // A day of year 0 is MySQL's zero date, which STR_TO_DATE refuses too.
    if day <= 365 || day > daynr(9999, 12, 31) {
        return None;
    }
    let (y, m, d) = civil(day - 719_528);
    Some((y, i64::from(m), i64::from(d)))
}

/// MySQL's `STR_TO_DATE(s, fmt)`: every specifier, a week and a weekday read back to their day,
/// the result typed by the format.
fn str_to_date(s: &str, fmt: &str) -> Option<Tm> {
    let mut r = Read::default();
    extract(s, fmt, &mut r)?;
    if r.usa {
        if !(1..=12).contains(&r.h) {
            return None;
        }
        r.h = r.h % 12 + if r.pm == Some(true) { 12 } else { 0 };
    }
    if r.yday > 0 {
        let day = days(r.y, 1, 1) + r.yday - 1;
        let (y, m, d) = civil(day);
        // A day past the year's end is the next year's (`1999-366` is 2000-01-01).
        (r.y, r.m, r.d) = (y, i64::from(m), i64::from(d));
    }
    match r.week {
        Some(week) if r.wday != 0 => (r.y, r.m, r.d) = week_day(&r, week)?,
        _ => {}
    }
    let (kind, fsp) = format_kind(fmt);
    let field = |v: i64, max: i64| (0..=max).contains(&v).then_some(v as u32);
    let t = Tm {
        kind,
        neg: false,
        y: r.y,
        m: field(r.m, 12)?,
        d: field(r.d, 31)?,
        h: field(r.h, 23)?,
        mi: field(r.mi, 59)?,
        s: field(r.s, 59)?,
        us: r.us,
        fsp,
    };
    if !(0..=9999).contains(&t.y) {
        return None;
    }
    Some(if kind == Kind::Time {
        Tm::time(t.time_us(), fsp)
    } else {
        t.as_kind(kind)
    })
}

/// TIME `t` moved by `i` (no months: the translation sends only a day's units and shorter),
/// MariaDB's way: a TIME of the digits of both, NULL past ±838:59:59.
fn time_moved(t: &Tm, i: &Interval) -> Option<String> {
    if i.months != 0 {
        return None;
    }
    let us = t.time_us().checked_add(i.us)?;
    (us.abs() <= TIME_MAX_US).then(|| Tm::time(us, t.fsp.max(i.fsp)).shown())
}

/// An interval unit MySQL knows and pinbad does not is an error, not a guess.
fn unsupported_unit(unit: &str) -> Error {
    Error::UserFunctionError(format!("INTERVAL unit {unit} is not supported by pinbad").into())
}

/// An interval: months and microseconds to add, and the fractional digits it brings.
struct Interval {
    months: i64,
    us: i64,
    fsp: u8,
    /// Whether it counts whole days or more (a date plus it stays a date).
    days_only: bool,
}

/// The fields a compound unit's text names, largest first, as (name, microseconds in one).
fn unit_fields(unit: &str) -> Option<&'static [(&'static str, i64)]> {
    const US: i64 = 1;
    const S: i64 = 1_000_000;
    const MI: i64 = 60 * S;
    const H: i64 = 60 * MI;
    const D: i64 = 24 * H;
    Some(match unit {
        "SECOND_MICROSECOND" => &[("s", S), ("us", US)],
        "MINUTE_MICROSECOND" => &[("mi", MI), ("s", S), ("us", US)],
        "MINUTE_SECOND" => &[("mi", MI), ("s", S)],
        "HOUR_MICROSECOND" => &[("h", H), ("mi", MI), ("s", S), ("us", US)],
        "HOUR_SECOND" => &[("h", H), ("mi", MI), ("s", S)],
        "HOUR_MINUTE" => &[("h", H), ("mi", MI)],
        "DAY_MICROSECOND" => &[("d", D), ("h", H), ("mi", MI), ("s", S), ("us", US)],
        "DAY_SECOND" => &[("d", D), ("h", H), ("mi", MI), ("s", S)],
        "DAY_MINUTE" => &[("d", D), ("h", H), ("mi", MI)],
        "DAY_HOUR" => &[("d", D), ("h", H)],
        _ => return None,
    })
}

/// `INTERVAL v unit` as MySQL reads it: a whole number of the unit (a SECOND may have a
/// fraction), or for a compound unit (`'1:30' HOUR_MINUTE`) its numbers, the last fields filled
/// first.
fn interval(v: ValueRef<'_>, unit: &str) -> Result<Option<Interval>> {
    if matches!(v, ValueRef::Null) {
        return Ok(None);
    }
    let unit = unit.to_ascii_uppercase();
    let whole = |k: i64| -> Option<Interval> {
        let n = number(v)?;
        Some(Interval {
            months: 0,
            us: (n.round() as i64).checked_mul(k)?,
            fsp: 0,
            days_only: k % 86_400_000_000 == 0,
        })
    };
    let months = |k: i64| -> Option<Interval> {
        Some(Interval {
            months: (number(v)?.round() as i64).checked_mul(k)?,
            us: 0,
            fsp: 0,
            days_only: true,
        })
    };
    Ok(match unit.as_str() {
        "MICROSECOND" => whole(1).map(|i| Interval { fsp: 6, ..i }),
        "SECOND" => {
            let t = text(v);
            let neg = t.trim_start().starts_with('-');
            let (n, us, fsp) = match v {
                ValueRef::Text(_) | ValueRef::Blob(_) => {
                    let n = number(v).unwrap_or(0.0);
                    let (us, fsp) = t.split_once('.').map_or((0, 0), |(_, f)| fraction(f));
                    (n.abs().trunc() as i64, us, fsp)
                }
                _ => {
                    let (n, us, fsp) = split_number(v).unwrap_or((0, 0, 0));
                    (n.abs(), us, fsp)
                }
            };
            let us = n.saturating_mul(1_000_000).saturating_add(i64::from(us));
            Some(Interval {
                months: 0,
                us: if neg { -us } else { us },
                fsp,
                days_only: false,
            })
        }
        "MINUTE" => whole(60_000_000),
        "HOUR" => whole(3_600_000_000),
        "DAY" => whole(86_400_000_000),
        "WEEK" => whole(7 * 86_400_000_000),
        "MONTH" => months(1),
        "QUARTER" => months(3),
        "YEAR" => months(12),
        "YEAR_MONTH" => {
            let t = text(v);
            let neg = t.trim_start().starts_with('-');
            let nums: Vec<i64> = t
                .split(|c: char| !c.is_ascii_digit())
                .filter(|p| !p.is_empty())
                .filter_map(|p| p.parse().ok())
                .collect();
            let (y, m) = match nums[..] {
                [m] => (0, m),
                [y, m, ..] => (y, m),
                [] => (0, 0),
            };
            let total = y.saturating_mul(12).saturating_add(m);
            Some(Interval {
                months: if neg { -total } else { total },
                us: 0,
                fsp: 0,
                days_only: true,
            })
        }
        other => {
            let Some(fields) = unit_fields(other) else {
                return Err(unsupported_unit(other));
            };
            let t = text(v);
            let neg = t.trim_start().starts_with('-');
            let nums: Vec<&str> = t
                .split(|c: char| !c.is_ascii_digit())
                .filter(|p| !p.is_empty())
                .collect();
            let skip = fields.len().saturating_sub(nums.len());
            let mut us: i64 = 0;
            let mut fsp = 0;
            for ((name, k), n) in fields[skip..].iter().zip(&nums) {
                let value = if *name == "us" {
                    fsp = 6;
                    i64::from(fraction(n).0)
                } else {
                    n.parse::<i64>().unwrap_or(i64::MAX).saturating_mul(*k)
                };
                us = us.saturating_add(value);
            }
            Some(Interval {
                months: 0,
                us: if neg { -us } else { us },
                fsp,
                days_only: false,
            })
        }
    })
}

/// `t` plus `i`; `None` where `t` has a zero part or the result leaves years 1 to 9999 (0 to
/// 9999 moved by months, as MySQL's `date_add_interval` bounds its month count).
fn add(t: Tm, i: &Interval) -> Option<Tm> {
    let kind = if t.kind == Kind::Date && i.days_only {
        Kind::Date
    } else {
        Kind::DateTime
    };
    let fsp = t.fsp.max(i.fsp);
    if i.months != 0 {
        t.day()?;
        let total = (t.y * 12 + i64::from(t.m) - 1).checked_add(i.months)?;
        let (y, m) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u32);
        if !(0..=9999).contains(&y) {
            return None;
        }
        return Some(Tm {
            kind,
            y,
            m,
            d: t.d.min(month_days(y, m)),
            fsp: if kind == Kind::Date { 0 } else { fsp },
            ..t
        });
    }
    Tm::at(t.micros()?.checked_add(i.us)?, kind, fsp)
}

/// Whole `unit`s from `a` to `b` (MySQL's `TIMESTAMPDIFF`).
fn diff(unit: &str, a: &Tm, b: &Tm) -> Result<Option<i64>> {
    let (Some(ua), Some(ub)) = (a.micros(), b.micros()) else {
        return Ok(None);
    };
    let d = ub - ua;
    let months = || {
        let mut n = (b.y * 12 + i64::from(b.m)) - (a.y * 12 + i64::from(a.m));
        // The part of a month: day of month and time of day, compared.
        let rest = |t: &Tm| (i64::from(t.d), t.time_us());
        if n > 0 && rest(b) < rest(a) {
            n -= 1;
        } else if n < 0 && rest(b) > rest(a) {
            n += 1;
        }
        n
    };
    Ok(Some(match unit.to_ascii_uppercase().as_str() {
        "MICROSECOND" => d,
        "SECOND" => d / 1_000_000,
        "MINUTE" => d / 60_000_000,
        "HOUR" => d / 3_600_000_000,
        "DAY" => d / 86_400_000_000,
        "WEEK" => d / (7 * 86_400_000_000),
        "MONTH" => months(),
        "QUARTER" => months() / 3,
        "YEAR" => months() / 12,
        other => return Err(unsupported_unit(other)),
    }))
}

/// The parts `EXTRACT` and the one-part functions (`YEAR(x)`, …) give; `None` for a part of a
/// day a date with a zero part does not have.
fn part(unit: &str, t: &Tm) -> Result<Option<i64>> {
    let (y, mo, d) = (t.y, i64::from(t.m), i64::from(t.d));
    let (h, mi, s, us) = (
        i64::from(t.h),
        i64::from(t.mi),
        i64::from(t.s),
        i64::from(t.us),
    );
    let sign = if t.neg { -1 } else { 1 };
    let nr = daynr(t.y, t.m, t.d);
    let whole_day = || (!t.zero_part()).then_some(());
    Ok(Some(match unit {
        "YEAR" => y,
        "QUARTER" => (mo + 2) / 3,
        "MONTH" => mo,
        // (Signed as a time interval's days are: `EXTRACT(DAY FROM TIME '-49:00:00')` is -2.)
        "DAY" => sign * d,
        "HOUR" => sign * h,
        "MINUTE" => sign * mi,
        "SECOND" => sign * s,
        "MICROSECOND" => sign * us,
        "YEAR_MONTH" => y * 100 + mo,
        "DAY_HOUR" => sign * (d * 100 + h),
        "DAY_MINUTE" => sign * ((d * 100 + h) * 100 + mi),
        "DAY_SECOND" => sign * (((d * 100 + h) * 100 + mi) * 100 + s),
        "DAY_MICROSECOND" => sign * ((((d * 100 + h) * 100 + mi) * 100 + s) * 1_000_000 + us),
        "HOUR_MINUTE" => sign * (h * 100 + mi),
        "HOUR_SECOND" => sign * ((h * 100 + mi) * 100 + s),
        "HOUR_MICROSECOND" => sign * (((h * 100 + mi) * 100 + s) * 1_000_000 + us),
        "MINUTE_SECOND" => sign * (mi * 100 + s),
        "MINUTE_MICROSECOND" => sign * ((mi * 100 + s) * 1_000_000 + us),
        "SECOND_MICROSECOND" => sign * (s * 1_000_000 + us),
        // 1 = Sunday.
        "DAYOFWEEK" => match whole_day() {
            Some(()) => weekday(nr, true) + 1,
            None => return Ok(None),
        },
        // 0 = Monday.
        "WEEKDAY" => match whole_day() {
            Some(()) => weekday(nr, false),
            None => return Ok(None),
        },
        "DAYOFYEAR" => match whole_day() {
            Some(()) => nr - daynr(y, 1, 1) + 1,
            None => return Ok(None),
        },
        // `default_week_format` is 0.
        "WEEK" => match whole_day() {
            Some(()) => calc_week(t, week_mode(0)).0,
            None => return Ok(None),
        },
        other => return Err(unsupported_unit(other)),
    }))
}

/// Whether the unit is a part of the time of day (read from a TIME as well as from a datetime).
fn time_unit(unit: &str) -> bool {
    matches!(
        unit,
        "HOUR"
            | "MINUTE"
            | "SECOND"
            | "MICROSECOND"
            | "HOUR_MINUTE"
            | "HOUR_SECOND"
            | "HOUR_MICROSECOND"
            | "MINUTE_SECOND"
            | "MINUTE_MICROSECOND"
            | "SECOND_MICROSECOND"
    )
}

/// Now, in microseconds since 1970-01-01 UTC.
fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}

/// A precision argument (`NOW(3)`): 0 to 6, else MySQL's error.
fn precision(ctx: &Context<'_>) -> Result<u8> {
    match number(ctx.get_raw(0)) {
        Some(n) if (0.0..=6.0).contains(&n) => Ok(n as u8),
        n => Err(Error::UserFunctionError(
            format!(
                "Too big precision {} specified. Maximum is 6",
                n.unwrap_or(0.0)
            )
            .into(),
        )),
    }
}

/// The time `now` (microseconds, UTC) as `kind` in a zone `offset` seconds east, with `fsp`
/// digits (the rest cut, as MySQL cuts them).
fn now_as(now: i64, offset: i64, kind: Kind, fsp: u8) -> String {
    let cut = 10i64.pow(6 - u32::from(fsp));
    let us = (now + offset * 1_000_000) / cut * cut;
    let t = Tm::at(us, Kind::DateTime, fsp).expect("the clock is within years 1 to 9999");
    match kind {
        Kind::Time => Tm::time(t.time_us(), fsp).shown(),
        _ => t.as_kind(kind).shown(),
    }
}

/// `FROM_UNIXTIME(x)`: the TIMESTAMP range only (0 to 2^31-1), the fraction kept with the
/// digits it was written with.
fn from_unixtime(v: ValueRef<'_>, offset: i64) -> Option<Tm> {
    let (n, us, fsp) = match v {
        ValueRef::Text(_) | ValueRef::Blob(_) => {
            let t = text(v);
            let n = number(v)?;
            let (us, _) = t.split_once('.').map_or((0, 0), |(_, f)| fraction(f));
            (n.trunc() as i64, us, if t.contains('.') { 6 } else { 0 })
        }
        v => split_number(v)?,
    };
    if !(0..=TIMESTAMP_MAX).contains(&n) || matches!(v, ValueRef::Real(r) if r < 0.0) {
        return None;
    }
    Tm::at(
        (n + offset) * 1_000_000 + i64::from(us),
        Kind::DateTime,
        fsp,
    )
}

/// `UNIX_TIMESTAMP(x)`: seconds since the epoch of a datetime in the session's zone, with its
/// fraction; NULL outside the TIMESTAMP range.
fn unix_timestamp(t: &Tm, offset: i64) -> Option<Value> {
    let us = t.micros()? - offset * 1_000_000;
    if !(0..=TIMESTAMP_MAX * 1_000_000 + 999_999).contains(&us) {
        return None;
    }
    Some(seconds(us, t.fsp))
}

/// Microseconds as seconds: an integer where there is no fraction, else its exact digits
/// (text, read as a DECIMAL: a double would lose the last of them past 2^33 seconds).
fn seconds(us: i64, fsp: u8) -> Value {
    if fsp == 0 {
        return Value::Integer(us / 1_000_000);
    }
    let sign = if us < 0 { "-" } else { "" };
    let a = us.unsigned_abs();
    let digits = format!("{:06}", a % 1_000_000);
    Value::Text(format!(
        "{sign}{}.{}",
        a / 1_000_000,
        &digits[..usize::from(fsp.min(6))]
    ))
}

/// A fixed offset `[+-]HH:MM` as seconds east of UTC (`CONVERT_TZ`'s and `time_zone`'s form).
pub(super) fn offset_of(zone: &str) -> Option<i64> {
    let z = zone.trim();
    let (sign, rest) = match z.as_bytes().first()? {
        b'+' => (1, &z[1..]),
        b'-' => (-1, &z[1..]),
        _ => return None,
    };
    let (h, m) = rest.split_once(':')?;
    let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    let secs = sign * (h * 3600 + m * 60);
    ((0..60).contains(&m) && (-13 * 3600 + 1..=14 * 3600).contains(&secs)).then_some(secs)
}

/// `PERIOD_ADD`'s and `PERIOD_DIFF`'s `YYMM`/`YYYYMM` as months since year 0.
fn period_months(p: i64) -> i64 {
    if p == 0 {
        return 0;
    }
    year_2000(p / 100) * 12 + p % 100 - 1
}

fn months_period(m: i64) -> i64 {
    if m == 0 {
        return 0;
    }
    year_2000(m / 12) * 100 + m % 12 + 1
}

/// A temporal literal's text (`DATE '2024-3-5'`, `TIMESTAMP '…'`, `TIME '…'`) as MySQL reads it,
/// written in its type's form with the fractional digits it was written with; `None` where it
/// is no such value (MySQL refuses the statement: error 1525).
pub(super) fn literal(kind: Kind, s: &str) -> Option<String> {
    let t = match kind {
        // Whole seconds past 838:59:59 no TIME (where a CAST clips; `838:59:59.5` is one).
        Kind::Time
            if time_text_datetime(s, false).is_none()
                && text_time_us(s.trim())
                    .is_some_and(|(us, _)| us.abs() / 1_000_000 > TIME_MAX_US / 1_000_000) =>
        {
            return None
        }
        Kind::Time => text_time(s)?,
        _ => text_datetime(s).filter(Tm::valid)?.as_kind(kind),
    };
    Some(t.shown())
}

/// A temporal's text (`2024-03-05`, `2024-03-05 01:02:03.25`, `-01:02:03`) as MySQL reads it
/// as a number: its digits in order (20240305, 20240305010203.25, -10203), an integer where it
/// has no fraction. Other text is read as a string is ([`super::functions::leading_number`]).
pub(super) fn temporal_number(s: &str) -> Value {
    let (negative, body) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (whole, fraction) = body.split_once('.').unwrap_or((body, ""));
    let temporal = whole.starts_with(|c: char| c.is_ascii_digit())
        && whole.contains([':', '-'])
        && whole
            .bytes()
            .all(|c| c.is_ascii_digit() || b"-: ".contains(&c))
        && fraction.bytes().all(|c| c.is_ascii_digit());
    if !temporal {
        return Value::Real(super::functions::leading_number(s));
    }
    let digits: String = whole.chars().filter(char::is_ascii_digit).collect();
    let sign = if negative { "-" } else { "" };
    if fraction.is_empty() {
        if let Ok(n) = format!("{sign}{digits}").parse::<i64>() {
            return Value::Integer(n);
        }
    }
    // Exact (a DATETIME(6)'s 20 digits are more than a double holds): the DECIMAL it is read as.
    super::decimal::Decimal::parse(&format!("{sign}{digits}.{fraction}0"))
        .map_or(Value::Null, |d| super::functions::held(&d))
}

/// A DATETIME (or, `time`, a TIME) rounded or truncated to `digits` fraction digits (0 to 6),
/// as MySQL's `ROUND(t, n)`/`TRUNCATE(t, n)` keep a temporal's type: half a unit rounds up
/// (away from zero for a negative TIME), into the seconds and what carries from them, but not
/// past the year 9999. A zero date is kept as it is, with that many digits.
fn rounded_temporal(t: Tm, digits: i64, round: bool) -> Option<Tm> {
    let fsp = digits.clamp(0, 6) as u8;
    let unit = 10i64.pow(u32::from(6 - fsp));
    let to_unit = |us: i64| {
        let down = us - us % unit;
        if round && us % unit * 2 >= unit {
            down + unit
        } else {
            down
        }
    };
    if t.kind == Kind::Time {
        let whole = (i64::from(t.h) * 3600 + i64::from(t.mi) * 60 + i64::from(t.s)) * 1_000_000
            + i64::from(t.us);
        let us = to_unit(whole);
        return Some(Tm::time(if t.neg { -us } else { us }, fsp));
    }
    // Past 9999-12-31 23:59:59 a rounding up is not taken: the last second stays.
    let whole = i64::from(t.us) - i64::from(t.us) % unit;
    match t.micros() {
        Some(us) => Tm::at(us - i64::from(t.us) + to_unit(i64::from(t.us)), t.kind, fsp)
            .or_else(|| Tm::at(us - i64::from(t.us) + whole, t.kind, fsp)),
        None => Some(Tm { fsp, ..t }),
    }
}

fn shown(t: Option<Tm>) -> Option<String> {
    t.map(|t| t.shown())
}

/// Registers the date and time functions on `conn`, in the session's time zone.
pub fn register(conn: &Connection, session: std::sync::Arc<Session>) -> Result<()> {
    let pure = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    let volatile = FunctionFlags::SQLITE_UTF8;
    let raw = |ctx: &Context<'_>, i: usize| datetime_of(ctx.get_raw(i));
    // `ROUND(t, n)`/`TRUNCATE(t, n)` of a DATETIME or TIME (`rounded_temporal`): the value,
    // the digits, 1 to round (0 to truncate), 1 for a TIME.
    conn.create_scalar_function("mysql_temporal_round", 4, pure, |ctx| {
        let Some(digits) = number(ctx.get_raw(1)) else {
            return Ok(None);
        };
        let round = number(ctx.get_raw(2)) == Some(1.0);
        let t = if number(ctx.get_raw(3)) == Some(1.0) {
            time_of(ctx.get_raw(0))
        } else {
            datetime_of(ctx.get_raw(0))
        };
        Ok(t.and_then(|t| rounded_temporal(t, digits as i64, round))
            .map(|t| t.shown()))
    })?;
    for (name, unit) in [
        ("year", "YEAR"),
        ("quarter", "QUARTER"),
        ("month", "MONTH"),
        ("day", "DAY"),
        ("dayofmonth", "DAY"),
        ("hour", "HOUR"),
        ("minute", "MINUTE"),
        ("second", "SECOND"),
        ("microsecond", "MICROSECOND"),
        ("dayofweek", "DAYOFWEEK"),
        ("weekday", "WEEKDAY"),
        ("dayofyear", "DAYOFYEAR"),
        ("week", "WEEK"),
    ] {
        conn.create_scalar_function(name, 1, pure, move |ctx| {
            let t = if time_unit(unit) {
                time_of(ctx.get_raw(0))
            } else {
                raw(ctx, 0)
            };
            // A negative TIME's parts are its fields, unsigned (MariaDB's `Item_func_hour`
            // answers `ltime.hour`: `SECOND(-7)` is 7); `EXTRACT` keeps the sign.
            Ok(match t {
                Some(t) => part(unit, &Tm { neg: false, ..t })?,
                None => None,
            })
        })?;
    }
    conn.create_scalar_function("mysql_temporal_number", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Text(t) => temporal_number(&String::from_utf8_lossy(t)),
            v => super::functions::owned(v),
        })
    })?;
    // A temporal as MySQL's `val_int` reads it (`typing::truncates_temporals`): its number,
    // the fraction dropped.
    conn.create_scalar_function("mysql_temporal_integer", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Text(t) => {
                let s = String::from_utf8_lossy(t);
                temporal_number(s.split_once('.').map_or(&*s, |(whole, _)| whole))
            }
            v => super::functions::owned(v),
        })
    })?;
    // `EXTRACT(unit FROM x)`, and `mysql_extract(unit, x, 1)` where `x` is a TIME. A DAY or
    // time-of-day unit reads a TIME, a number short of a datetime or text with no date part as
    // a time interval (MariaDB's `Extract_source`), its days its hours over 24 (`EXTRACT(DAY
    // FROM 1)` is 0, `EXTRACT(HOUR FROM TIME '838:00:00')` 22); a year, quarter or month of a
    // TIME is 0. Anything else is read as a date.
    for args in [2, 3] {
        conn.create_scalar_function("mysql_extract", args, pure, move |ctx| {
            let unit = text(ctx.get_raw(0)).to_ascii_uppercase();
            let v = ctx.get_raw(1);
            let is_time = args == 3 && number(ctx.get_raw(2)) == Some(1.0);
            if matches!(v, ValueRef::Null) {
                return Ok(None);
            }
            let interval = unit == "DAY" || unit.starts_with("DAY_") || time_unit(&unit);
            if !interval {
                if is_time && matches!(unit.as_str(), "YEAR" | "QUARTER" | "MONTH" | "YEAR_MONTH") {
                    return Ok(time_of(v).map(|_| 0));
                }
                return Ok(match raw(ctx, 1) {
                    Some(t) => part(&unit, &t)?,
                    None => None,
                });
            }
            let dated = match v {
                ValueRef::Text(t) | ValueRef::Blob(t) => {
                    !is_time && std::str::from_utf8(t).is_ok_and(has_date_part)
                }
                _ => !is_time && interval_of(v).is_none(),
            };
            let t = if !dated {
                interval_of(v).or_else(|| time_of(v))
            } else if time_unit(&unit) {
                time_of(v)
            } else {
                raw(ctx, 1)
            };
            let t = t.map(|t| match t.kind {
                Kind::Time => Tm {
                    d: t.h / 24,
                    h: t.h % 24,
                    ..t
                },
                _ => t,
            });
            Ok(match t {
                Some(t) => part(&unit, &t)?,
                None => None,
            })
        })?;
    }
    conn.create_scalar_function("week", 2, pure, move |ctx| {
        let mode = number(ctx.get_raw(1)).map_or(0, |m| m as i64);
        Ok(raw(ctx, 0)
            .filter(|t| !t.zero_part())
            .map(|t| calc_week(&t, week_mode(mode)).0))
    })?;
    for args in [1, 2] {
        conn.create_scalar_function("yearweek", args, pure, move |ctx| {
            let mode = if args == 2 {
                number(ctx.get_raw(1)).map_or(0, |m| m as i64)
            } else {
                0
            };
            Ok(raw(ctx, 0).filter(|t| !t.zero_part()).map(|t| {
                let (w, y) = calc_week(&t, week_mode(mode) | WEEK_YEAR);
                y * 100 + w
            }))
        })?;
    }
    conn.create_scalar_function("weekofyear", 1, pure, move |ctx| {
        Ok(raw(ctx, 0)
            .filter(|t| !t.zero_part())
            .map(|t| calc_week(&t, week_mode(3)).0))
    })?;
    conn.create_scalar_function("dayname", 1, pure, move |ctx| {
        Ok(raw(ctx, 0)
            .filter(|t| !t.zero_part())
            .and_then(|t| format(&t, "%W", false)))
    })?;
    conn.create_scalar_function("monthname", 1, pure, move |ctx| {
        Ok(raw(ctx, 0).and_then(|t| format(&t, "%M", false)))
    })?;
    conn.create_scalar_function("date_format", 2, pure, move |ctx| {
        let fmt = ctx.get_raw(1);
        if matches!(fmt, ValueRef::Null) {
            return Ok(None);
        }
        Ok(raw(ctx, 0).and_then(|t| format(&t, &text(fmt), false)))
    })?;
    conn.create_scalar_function("time_format", 2, pure, |ctx| {
        let fmt = ctx.get_raw(1);
        if matches!(fmt, ValueRef::Null) {
            return Ok(None);
        }
        // A datetime's date must be a real one here (MariaDB's `TIME_FORMAT('2026-02-30
        // 12:00:00', '%H')` is NULL, its `HOUR` 12).
        let v = ctx.get_raw(0);
        if let ValueRef::Text(t) | ValueRef::Blob(t) = v {
            let dated = std::str::from_utf8(t)
                .ok()
                .and_then(|s| time_text_datetime(s, false));
            if dated.is_some_and(|t| !t.is_some_and(|t| t.valid())) {
                return Ok(None);
            }
        }
        Ok(time_of(v).and_then(|t| format(&t, &text(fmt), true)))
    })?;
    conn.create_scalar_function("date", 1, pure, move |ctx| {
        Ok(shown(raw(ctx, 0).map(|t| t.as_kind(Kind::Date))))
    })?;
    // `CAST(x AS DATETIME)`: NULL where `x` reads as no datetime.
    conn.create_scalar_function("mysql_cast_datetime", 1, pure, move |ctx| {
        Ok(shown(raw(ctx, 0).map(|t| t.as_kind(Kind::DateTime))))
    })?;
    // `CAST(x AS DATETIME(n))`, `CAST(x AS TIME(n))`: of `n` fraction digits (0 unless given),
    // what is past them cut, as MariaDB casts (`CAST(0.5 AS DATETIME)` is the zero datetime,
    // `CAST(1.5 AS TIME)` 00:00:01).
    conn.create_scalar_function("mysql_cast_datetime", 2, pure, move |ctx| {
        let digits = ctx.get::<Option<i64>>(1)?.unwrap_or(0);
        Ok(shown(raw(ctx, 0).and_then(|t| {
            rounded_temporal(t.as_kind(Kind::DateTime), digits, false)
        })))
    })?;
    conn.create_scalar_function("mysql_cast_time", 2, pure, move |ctx| {
        let digits = ctx.get::<Option<i64>>(1)?.unwrap_or(0);
        Ok(shown(
            time_of(ctx.get_raw(0)).and_then(|t| rounded_temporal(t, digits, false)),
        ))
    })?;
    // An operand compared as a DATETIME (`typing::coercer`): one that reads as no datetime
    // compares as the zero one, as MySQL compares it (with a warning), and NULL stays NULL.
    conn.create_scalar_function("mysql_datetime", 1, pure, move |ctx| {
        if matches!(ctx.get_raw(0), ValueRef::Null) {
            return Ok(None);
        }
        Ok(
            shown(datetime_of_loose(ctx.get_raw(0)).map(|t| t.as_kind(Kind::DateTime)))
                .or_else(|| shown(Some(Tm::zero(Kind::DateTime)))),
        )
    })?;
    conn.create_scalar_function("time", 1, pure, |ctx| Ok(shown(time_of(ctx.get_raw(0)))))?;
    // An operand compared as a TIME, or a TIME sorted (`typing::coercer`, the translation's sort
    // keys): its value in microseconds ([`compared_time_us`]), NULL staying NULL.
    // (One per operand type: a BIGINT UNSIGNED's 64 bits and a DECIMAL's text read apart.)
    type Key = fn(ValueRef<'_>) -> i64;
    let keys: [(&str, Key); 3] = [
        ("mysql_time_key", |v| compared_time_us(v, false)),
        ("mysql_time_key_unsigned", |v| compared_time_us(v, true)),
        ("mysql_time_key_decimal", compared_decimal_time_us),
    ];
    for (name, key) in keys {
        conn.create_scalar_function(name, 1, pure, move |ctx| {
            let v = ctx.get_raw(0);
            Ok((!matches!(v, ValueRef::Null)).then(|| key(v)))
        })?;
    }
    // `MIN`/`MAX` of TIMEs: `mysql_time_keyed(t)` is a blob that sorts as `t`'s value (its
    // microseconds, big-endian with the sign bit flipped: SQLite compares blobs by their bytes)
    // followed by its text, which `mysql_time_unkey` gives back.
    conn.create_scalar_function("mysql_time_keyed", 1, pure, |ctx| {
        let v = ctx.get_raw(0);
        if matches!(v, ValueRef::Null) {
            return Ok(None);
        }
        let key = (compared_time_us(v, false) as u64 ^ (1 << 63)).to_be_bytes();
        let mut keyed = key.to_vec();
        keyed.extend_from_slice(text(v).as_bytes());
        Ok(Some(keyed))
    })?;
    conn.create_scalar_function("mysql_time_unkey", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Blob(k) if k.len() >= 8 => {
                Some(String::from_utf8_lossy(&k[8..]).into_owned())
            }
            _ => None,
        })
    })?;
    // `GREATEST`/`LEAST` of TIMEs (each operand one, or NULL): the one of the greatest or least
    // value, NULL where any is.
    for (name, pick) in [
        ("mysql_greatest_time", std::cmp::Ordering::Greater),
        ("mysql_least_time", std::cmp::Ordering::Less),
    ] {
        conn.create_scalar_function(name, -1, pure, move |ctx| {
            let mut best: Option<(i64, usize)> = None;
            for i in 0..ctx.len() {
                let v = ctx.get_raw(i);
                if matches!(v, ValueRef::Null) {
                    return Ok(None);
                }
                let key = compared_time_us(v, false);
                if best.is_none_or(|(b, _)| key.cmp(&b) == pick) {
                    best = Some((key, i));
                }
            }
            Ok(best.map(|(_, i)| text(ctx.get_raw(i))))
        })?;
    }
    // A TIME where a date is read ([`time_today`]): the translation calls this on an operand
    // the typing says is a TIME.
    let s = session.clone();
    conn.create_scalar_function("mysql_time_datetime", 1, volatile, move |ctx| {
        let offset = zone_offset(&s);
        Ok(shown(
            time_of(ctx.get_raw(0)).and_then(|t| time_today(&t, now_us(), offset)),
        ))
    })?;
    conn.create_scalar_function("last_day", 1, pure, move |ctx| {
        Ok(shown(raw(ctx, 0).filter(|t| t.m != 0).map(|t| Tm {
            d: month_days(t.y, t.m),
            ..t.as_kind(Kind::Date)
        })))
    })?;
    conn.create_scalar_function("to_days", 1, pure, move |ctx| {
        Ok(raw(ctx, 0)
            .filter(|t| !t.zero_part())
            .map(|t| daynr(t.y, t.m, t.d)))
    })?;
    // Seconds since year 0, of a day `TO_DAYS` counts.
    conn.create_scalar_function("to_seconds", 1, pure, move |ctx| {
        Ok(raw(ctx, 0).filter(|t| !t.zero_part()).map(|t| {
            daynr(t.y, t.m, t.d) * 86_400
                + i64::from(t.h) * 3600
                + i64::from(t.mi) * 60
                + i64::from(t.s)
        }))
    })?;
    conn.create_scalar_function("from_days", 1, pure, |ctx| {
        Ok(number(ctx.get_raw(0)).map(|n| {
            let n = n.round() as i64;
            if n < 366 || n > daynr(9999, 12, 31) {
                Tm::zero(Kind::Date).shown()
            } else {
                shown(Tm::at((n - 719_528) * 86_400_000_000, Kind::Date, 0)).unwrap_or_default()
            }
        }))
    })?;
    conn.create_scalar_function("makedate", 2, pure, |ctx| {
        let (y, n) = (number(ctx.get_raw(0)), number(ctx.get_raw(1)));
        Ok(match (y, n) {
            (Some(y), Some(n)) if n >= 1.0 && y >= 0.0 => {
                let y = year_2000(y.round() as i64);
                let n = (n.round() as i64).min(10_000 * 366);
                shown(Tm::at(
                    (days(y, 1, 1) + n - 1) * 86_400_000_000,
                    Kind::Date,
                    0,
                ))
            }
            _ => None,
        })
    })?;
    conn.create_scalar_function("maketime", 3, pure, |ctx| {
        let (Some(h), Some(m), Some(s)) = (
            number(ctx.get_raw(0)),
            number(ctx.get_raw(1)),
            split_number(ctx.get_raw(2))
                .or_else(|| number(ctx.get_raw(2)).map(|s| (s.trunc() as i64, 0, 0))),
        ) else {
            return Ok(None);
        };
        let (h, m) = (h.trunc() as i64, m.trunc() as i64);
        if !(0..60).contains(&m) || !(0..60).contains(&s.0) {
            return Ok(None);
        }
        let whole =
            (h.unsigned_abs().min(1000) as i64 * 3600 + m * 60 + s.0) * 1_000_000 + i64::from(s.1);
        Ok(Some(
            Tm::time(if h < 0 { -whole } else { whole }, s.2).shown(),
        ))
    })?;
    conn.create_scalar_function("datediff", 2, pure, move |ctx| {
        Ok(
            match (
                raw(ctx, 0).and_then(|t| t.day()),
                raw(ctx, 1).and_then(|t| t.day()),
            ) {
                (Some(a), Some(b)) => Some(a - b),
                _ => None,
            },
        )
    })?;
    conn.create_scalar_function("timestampdiff", 3, pure, move |ctx| {
        let unit = text(ctx.get_raw(0));
        match (raw(ctx, 1), raw(ctx, 2)) {
            (Some(a), Some(b)) => diff(&unit, &a, &b),
            _ => Ok(None),
        }
    })?;
    conn.create_scalar_function("timediff", 2, pure, |ctx| {
        let read = |i: usize| -> Option<Tm> {
            let v = ctx.get_raw(i);
            match v {
                // A datetime stays one; a date alone is read as a TIME (its time, 00:00:00).
                ValueRef::Text(t) | ValueRef::Blob(t)
                    if has_date_part(std::str::from_utf8(t).ok()?) =>
                {
                    datetime_of(v)
                        .filter(|t| t.kind == Kind::DateTime)
                        .or_else(|| time_of(v))
                }
                _ => time_of(v),
            }
        };
        let (Some(a), Some(b)) = (read(0), read(1)) else {
            return Ok(None);
        };
        let fsp = a.fsp.max(b.fsp);
        Ok(match (a.kind == Kind::Time, b.kind == Kind::Time) {
            (true, true) => Some(Tm::time(a.time_us() - b.time_us(), fsp).shown()),
            (false, false) => match (a.micros(), b.micros()) {
                (Some(x), Some(y)) => Some(Tm::time(x - y, fsp).shown()),
                _ => None,
            },
            _ => None,
        })
    })?;
    // A temporal written as a string with its fraction at 6 digits, or none where it is zero
    // (`translate::auto_fraction`); anything else as it is.
    conn.create_scalar_function("mysql_auto_fraction", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Text(t) => std::str::from_utf8(t).ok().map(auto_fraction),
            ValueRef::Null => None,
            v => Some(text(v)),
        })
    })?;
    // A string moved by an interval shown with the fraction digits it is declared with
    // (`translate`'s `moved_string_digits`; MariaDB's `my_datetime_to_str` of its decimals).
    conn.create_scalar_function("mysql_fraction_digits", 2, pure, |ctx| {
        let digits = ctx.get::<Option<i64>>(1)?.unwrap_or(0).clamp(0, 6) as usize;
        Ok(match ctx.get_raw(0) {
            ValueRef::Text(t) => std::str::from_utf8(t)
                .ok()
                .map(|s| with_fraction_digits(s, digits)),
            ValueRef::Null => None,
            v => Some(text(v)),
        })
    })?;
    for (name, sign) in [("addtime", 1), ("subtime", -1)] {
        conn.create_scalar_function(name, 2, pure, move |ctx| {
            let v = ctx.get_raw(0);
            let is_datetime = match v {
                ValueRef::Text(t) | ValueRef::Blob(t) => std::str::from_utf8(t)
                    .ok()
                    .and_then(|s| time_text_datetime(s, false))
                    .is_some(),
                _ => false,
            };
            let Some(b) = time_of(ctx.get_raw(1)) else {
                return Ok(None);
            };
            if is_datetime {
                let Some(a) = datetime_of(v) else {
                    return Ok(None);
                };
                let fsp = a.fsp.max(b.fsp);
                Ok(a.micros()
                    .and_then(|x| Tm::at(x + sign * b.time_us(), Kind::DateTime, fsp))
                    .map(|t| t.shown()))
            } else {
                Ok(time_of(v)
                    .map(|a| Tm::time(a.time_us() + sign * b.time_us(), a.fsp.max(b.fsp)).shown()))
            }
        })?;
    }
    // `x ± INTERVAL n UNIT`, `DATE_ADD(x, INTERVAL n UNIT)` and their kin (`statement` makes
    // them `f(x, n, 'UNIT')`); `ADDDATE(x, n)` adds days.
    for (name, sign) in [
        ("mysql_date_add", false),
        ("date_add", false),
        ("adddate", false),
        ("date_sub", true),
        ("subdate", true),
    ] {
        conn.create_scalar_function(name, 3, pure, move |ctx| {
            let unit = text(ctx.get_raw(2));
            let Some(mut i) = interval(ctx.get_raw(1), &unit)? else {
                return Ok(None);
            };
            if sign {
                (i.months, i.us) = (-i.months, -i.us);
            }
            Ok(shown(raw(ctx, 0).and_then(|t| add(t, &i))))
        })?;
    }
    // A TIME moved by a unit of a day or shorter (`TIME '10:00' + INTERVAL 30 MINUTE`): a TIME,
    // as MariaDB's `Func_handler_date_add_interval_time` makes it (the translation calls this
    // where the typing says the operand is a TIME); NULL past ±838:59:59 (its warning 1441).
    conn.create_scalar_function("mysql_time_add", 3, pure, move |ctx| {
        let unit = text(ctx.get_raw(2));
        let Some(i) = interval(ctx.get_raw(1), &unit)? else {
            return Ok(None);
        };
        Ok(time_of(ctx.get_raw(0)).and_then(|t| time_moved(&t, &i)))
    })?;
    for (name, sign) in [("adddate", false), ("subdate", true)] {
        conn.create_scalar_function(name, 2, pure, move |ctx| {
            let Some(mut i) = interval(ctx.get_raw(1), "DAY")? else {
                return Ok(None);
            };
            if sign {
                i.us = -i.us;
            }
            Ok(shown(raw(ctx, 0).and_then(|t| add(t, &i))))
        })?;
    }
    conn.create_scalar_function("timestampadd", 3, pure, move |ctx| {
        let unit = text(ctx.get_raw(0));
        let Some(i) = interval(ctx.get_raw(1), &unit)? else {
            return Ok(None);
        };
        Ok(shown(raw(ctx, 2).and_then(|t| add(t, &i))))
    })?;
    conn.create_scalar_function("str_to_date", 2, pure, |ctx| {
        if matches!(ctx.get_raw(0), ValueRef::Null) || matches!(ctx.get_raw(1), ValueRef::Null) {
            return Ok(None);
        }
        Ok(shown(str_to_date(
            &text(ctx.get_raw(0)),
            &text(ctx.get_raw(1)),
        )))
    })?;
    conn.create_scalar_function("sec_to_time", 1, pure, |ctx| {
        let v = ctx.get_raw(0);
        Ok(match v {
            ValueRef::Null => None,
            ValueRef::Integer(_) | ValueRef::Real(_) => split_number(v).map(|(n, us, fsp)| {
                let whole = n.saturating_mul(1_000_000);
                let neg = n < 0 || matches!(v, ValueRef::Real(r) if r < 0.0);
                let us = if neg {
                    whole - i64::from(us)
                } else {
                    whole + i64::from(us)
                };
                Tm::time(us, fsp).shown()
            }),
            v => number(v).map(|n| Tm::time((n * 1e6) as i64, 6).shown()),
        })
    })?;
    conn.create_scalar_function("time_to_sec", 1, pure, |ctx| {
        Ok(time_of(ctx.get_raw(0)).map(|t| seconds(t.time_us(), t.fsp)))
    })?;
    conn.create_scalar_function("period_add", 2, pure, |ctx| {
        Ok(match (number(ctx.get_raw(0)), number(ctx.get_raw(1))) {
            // The period 0 stays 0, whatever is added.
            (Some(p), Some(_)) if p as i64 == 0 => Some(0),
            (Some(p), Some(n)) => Some(months_period(period_months(p as i64) + n as i64)),
            _ => None,
        })
    })?;
    conn.create_scalar_function("period_diff", 2, pure, |ctx| {
        Ok(match (number(ctx.get_raw(0)), number(ctx.get_raw(1))) {
            (Some(a), Some(b)) => Some(period_months(a as i64) - period_months(b as i64)),
            _ => None,
        })
    })?;
    conn.create_scalar_function("convert_tz", 3, pure, move |ctx| {
        let (Some(t), Some(from), Some(to)) = (
            raw(ctx, 0),
            offset_of(&text(ctx.get_raw(1))),
            offset_of(&text(ctx.get_raw(2))),
        ) else {
            return Ok(None);
        };
        let kind = Kind::DateTime;
        // A time a TIMESTAMP cannot hold (its second since the epoch in UTC below 1 or past
        // 2^31 - 1) is not converted: MariaDB's `TIME_to_gmt_sec` answers 0 for it, which
        // `CONVERT_TZ` takes for "leave it as it is".
        Ok(shown(t.micros().and_then(|us| {
            let utc = us.div_euclid(1_000_000) - from;
            let shift = if (1..=i64::from(i32::MAX)).contains(&utc) {
                to - from
            } else {
                0
            };
            Tm::at(us + shift * 1_000_000, kind, t.fsp)
        })))
    })?;
    let s = session.clone();
    conn.create_scalar_function("from_unixtime", 1, pure, move |ctx| {
        Ok(shown(from_unixtime(ctx.get_raw(0), zone_offset(&s))))
    })?;
    let s = session.clone();
    conn.create_scalar_function("from_unixtime", 2, pure, move |ctx| {
        let fmt = ctx.get_raw(1);
        if matches!(fmt, ValueRef::Null) {
            return Ok(None);
        }
        Ok(from_unixtime(ctx.get_raw(0), zone_offset(&s))
            .and_then(|t| format(&t, &text(fmt), false)))
    })?;
    conn.create_scalar_function("unix_timestamp", 0, volatile, |_| {
        Ok(now_us().div_euclid(1_000_000))
    })?;
    let s = session.clone();
    conn.create_scalar_function("unix_timestamp", 1, pure, move |ctx| {
        Ok(raw(ctx, 0).and_then(|t| unix_timestamp(&t, zone_offset(&s))))
    })?;
    // The clock: local to the session's zone, or UTC; `(n)` digits of the second.
    for (name, kind, utc) in [
        ("now", Kind::DateTime, false),
        ("sysdate", Kind::DateTime, false),
        ("curdate", Kind::Date, false),
        ("curtime", Kind::Time, false),
        ("utc_timestamp", Kind::DateTime, true),
        ("utc_date", Kind::Date, true),
        ("utc_time", Kind::Time, true),
    ] {
        let s = session.clone();
        let offset = move || if utc { 0 } else { zone_offset(&s) };
        let o = offset.clone();
        conn.create_scalar_function(name, 0, volatile, move |_| {
            Ok(now_as(now_us(), o(), kind, 0))
        })?;
        if kind != Kind::Date {
            conn.create_scalar_function(name, 1, volatile, move |ctx| {
                Ok(now_as(now_us(), offset(), kind, precision(ctx)?))
            })?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// A DATETIME's text with as many fraction digits as asked: its own cut or padded; a DATE
    /// or anything else as it is.
    #[test]
    fn fraction_digits_are_cut_or_padded() {
        assert_eq!(
            with_fraction_digits("2026-12-01 01:00:00", 6),
            "2026-12-01 01:00:00.000000"
        );
        assert_eq!(
            with_fraction_digits("2026-12-01 01:00:00.5", 6),
            "2026-12-01 01:00:00.500000"
        );
        assert_eq!(
            with_fraction_digits("2026-12-01 01:00:00.123456", 0),
            "2026-12-01 01:00:00"
        );
        assert_eq!(
            with_fraction_digits("2026-12-01 01:00:00.123456", 2),
            "2026-12-01 01:00:00.12"
        );
        assert_eq!(with_fraction_digits("2026-12-02", 6), "2026-12-02");
        assert_eq!(with_fraction_digits("12:00:00", 6), "12:00:00");
    }

    use super::*;

    /// A number of 999999 microseconds is no TIME in MariaDB 10.11 (`CAST(19.999999 AS TIME)`
    /// is NULL); 999998 and a string of 999999 are ones.
    #[test]
    fn a_number_of_999999_microseconds_is_no_time() {
        use rusqlite::types::ValueRef;
        assert!(time_of(ValueRef::Real(19.999_999_7)).is_none());
        assert!(time_of(ValueRef::Real(-19.999_999)).is_none());
        assert!(time_of(ValueRef::Real(19.999_998)).is_some());
        assert!(time_of(ValueRef::Text(b"00:00:19.999999")).is_some());
    }

    fn at(s: &str) -> Tm {
        datetime_of(ValueRef::Text(s.as_bytes())).unwrap()
    }

    fn plus(s: &str, n: i64, unit: &str) -> Option<String> {
        let i = interval(ValueRef::Integer(n), unit).unwrap().unwrap();
        shown(add(at(s), &i))
    }

    #[test]
    fn a_string_temporal_shows_six_fraction_digits_or_none() {
        assert_eq!(auto_fraction("11:00:00.25"), "11:00:00.250000");
        assert_eq!(
            auto_fraction("2020-01-01 11:00:00.5"),
            "2020-01-01 11:00:00.500000"
        );
        assert_eq!(auto_fraction("-838:59:59.000"), "-838:59:59");
        assert_eq!(auto_fraction("11:00:00"), "11:00:00");
        assert_eq!(auto_fraction("11:00:00.123456"), "11:00:00.123456");
    }

    /// MariaDB 10.11's `CAST(s AS DATETIME(6))` of digits alone, by their count.
    #[test]
    fn digits_alone_are_read_as_mariadb_reads_them_by_their_count() {
        let cast = |s: &str| text_datetime(s).map(|t| t.shown());
        let d = "24030512345678901234";
        let want = [
            (4, None),
            (5, Some("2024-03-00")),
            (6, Some("2024-03-05")),
            (7, Some("2024-03-05 01:00:00")),
            (8, Some("2403-05-12")),
            (9, Some("2024-03-05 12:03:00")),
            (11, Some("2024-03-05 12:34:05")),
            (12, Some("2024-03-05 12:34:56")),
            (13, Some("2024-03-05 12:34:56")),
            (14, None),
            (15, None),
        ];
        for (n, want) in want {
            assert_eq!(cast(&d[..n]).as_deref(), want, "{}", &d[..n]);
        }
        assert_eq!(cast("99123").as_deref(), Some("1999-12-03"));
        assert_eq!(cast("99123123").as_deref(), None);
        // A fraction after the seconds alone; digits past the seconds end the reading.
        assert_eq!(cast("2403051.5"), None);
        assert_eq!(
            cast("24030512345.5").as_deref(),
            Some("2024-03-05 12:34:05.5")
        );
        assert_eq!(
            cast("1000000000000.5").as_deref(),
            Some("2010-00-00 00:00:00")
        );
        assert_eq!(cast("2403051x").as_deref(), Some("2024-03-05 01:00:00"));
        assert_eq!(cast("20240305.5"), None);
        assert_eq!(
            cast("20240305123456.5").as_deref(),
            Some("2024-03-05 12:34:56.5")
        );
        // Each count alike: a day 0, a two-digit year 0 of the 2000s unless all is 0.
        assert_eq!(cast("10000000").as_deref(), Some("1000-00-00"));
        assert_eq!(cast("000001").as_deref(), Some("2000-00-01"));
        assert_eq!(cast("0000000").as_deref(), Some("0000-00-00 00:00:00"));
    }

    #[test]
    fn a_time_read_as_a_date_is_today_at_that_time() {
        let time = |s: &str| time_of(ValueRef::Text(s.as_bytes())).unwrap();
        // 2026-11-30 10:00:00 UTC.
        let now = days(2026, 11, 30) * 86_400_000_000 + 36_000_000_000;
        let today = |s: &str, offset: i64| shown(time_today(&time(s), now, offset));
        assert_eq!(today("12:34:56", 0).as_deref(), Some("2026-11-30 12:34:56"));
        assert_eq!(today("25:00:00", 0).as_deref(), Some("2026-12-01 01:00:00"));
        assert_eq!(
            today("-01:00:00", 0).as_deref(),
            Some("2026-11-29 23:00:00")
        );
        assert_eq!(
            today("00:00:00.5", 0).as_deref(),
            Some("2026-11-30 00:00:00.5")
        );
        // Today is the session zone's: 10:00 UTC is the next day at +14:00.
        assert_eq!(
            today("01:00:00", 14 * 3600).as_deref(),
            Some("2026-12-01 01:00:00")
        );
    }

    #[test]
    fn text_is_read_as_a_time_as_mariadb_reads_it() {
        // MariaDB 10.11's `CAST(s AS TIME)`, in seconds.
        let secs = |s: &str| text_time(s).map(|t| t.time_us() / 1_000_000);
        let day = 86_400;
        // A date with a time, its time; a date alone, its 00:00:00 (it may be a DATE's value:
        // a comparison, where the translation knows a string, reads it as MariaDB reads one);
        // a date not parted from a time, or followed by what is none, the number its leading
        // digits make.
        assert_eq!(secs("2026-11-28"), Some(0));
        assert_eq!(secs("2026-11-28 x"), Some(1226));
        assert_eq!(secs("2026-11-28x"), Some(1226));
        assert_eq!(secs("2024-3-5xx"), Some(20 * 60 + 24));
        assert_eq!(secs("2026-13-45"), Some(1226));
        assert_eq!(secs("2026-11-2812:00:00"), Some(1226));
        assert_eq!(secs("2026-11-28 12"), Some(12 * 3600));
        assert_eq!(secs("9-1-1 1:2"), Some(3720));
        assert_eq!(secs("2026-02-30 12:00:00"), Some(12 * 3600));
        assert_eq!(secs("2026-13-45 12:00:00"), None);
        // A day part where two digits follow, or one and a `:` or `.`; then the hours.
        assert_eq!(secs("1 2"), Some(1));
        assert_eq!(secs("1 2x"), Some(1));
        assert_eq!(secs("1 2.5"), Some(day + 2 * 3600));
        assert_eq!(secs("34 1"), Some(34));
        assert_eq!(secs("1 02"), Some(day + 2 * 3600));
        assert_eq!(secs("1 12"), Some(day + 12 * 3600));
        assert_eq!(secs("1 123"), Some(day + 123 * 3600));
        assert_eq!(secs("12 34 56"), Some(12 * day + 34 * 3600));
        assert_eq!(secs("1 2:30"), Some(day + 2 * 3600 + 30 * 60));
        assert_eq!(secs("-1 02"), Some(-(day + 2 * 3600)));
        assert_eq!(secs("10 12:00"), Some(10 * day + 12 * 3600));
        assert_eq!(secs("1:2"), Some(3720));
        assert_eq!(secs("100"), Some(60));
        // One sign; an exponent after the time makes a number, no TIME.
        assert_eq!(secs("+1"), Some(1));
        assert_eq!(secs("+ 12:30"), Some(12 * 3600 + 30 * 60));
        assert_eq!(secs("-+1"), None);
        assert_eq!(secs("++1"), None);
        assert_eq!(secs("1e2"), None);
        assert_eq!(secs("1.5E-2"), None);
        assert_eq!(secs("12:30:00e1"), None);
        assert_eq!(secs("1e"), Some(1));
        assert_eq!(secs("1e-"), Some(1));
    }

    #[test]
    fn a_comparison_reads_a_time_by_value_unclipped() {
        let key = |v: ValueRef<'_>| compared_time_us(v, false);
        let text = |s: &str| key(ValueRef::Text(s.as_bytes()));
        let hours = |h: i64| h * 3_600_000_000;
        // By value, where the text sorts otherwise.
        assert!(text("100:00:00") > text("12:00:00"));
        assert!(text("-01:00:00") > text("-02:00:00"));
        assert_eq!(text("-00:00:00.5"), -500_000);
        // Not clipped at 838:59:59.
        assert_eq!(text("900:00:00"), hours(900));
        assert_eq!(key(ValueRef::Integer(8_390_000)), hours(839));
        assert_eq!(key(ValueRef::Real(-8_390_000.0)), -hours(839));
        assert_eq!(key(ValueRef::Real(1e20)), i64::MAX);
        assert_eq!(compared_time_us(ValueRef::Integer(-1), true), i64::MAX);
        assert_eq!(key(ValueRef::Integer(-1)), -1_000_000);
        // A datetime's time; what reads as no TIME is 00:00:00.
        assert_eq!(key(ValueRef::Integer(20261128120000)), hours(12));
        assert_eq!(key(ValueRef::Integer(20261399)), 0);
        assert_eq!(key(ValueRef::Integer(9_999_999)), 0);
        assert_eq!(text("2026-11-28 12:00:00"), hours(12));
        // A string's date alone, the number its leading digits make (MariaDB's `TIME
        // '00:00:00' = '2026-11-28'` is 0).
        assert_eq!(text("2026-11-28"), 1_226_000_000);
        assert_eq!(text("12-11-28"), 12_000_000);
        assert_eq!(text("abc"), 0);
    }

    #[test]
    fn a_number_read_as_an_interval_keeps_its_hours() {
        let hours = |v: ValueRef<'_>| interval_of(v).map(|t| (t.neg, t.h, t.mi, t.s));
        assert_eq!(hours(ValueRef::Integer(1)), Some((false, 0, 0, 1)));
        assert_eq!(
            hours(ValueRef::Integer(20240305)),
            Some((false, 2024, 3, 5))
        );
        assert_eq!(hours(ValueRef::Integer(-490203)), Some((true, 49, 2, 3)));
        assert_eq!(hours(ValueRef::Integer(60)), None);
        assert_eq!(hours(ValueRef::Integer(20240305000000)), None);
        assert_eq!(hours(ValueRef::Text(b"1")), None);
    }

    #[test]
    fn temporals_read_as_numbers_are_their_digits() {
        assert_eq!(temporal_number("2024-03-05"), Value::Integer(20240305));
        assert_eq!(
            temporal_number("2024-03-05 01:02:03"),
            Value::Integer(20240305010203)
        );
        assert_eq!(
            temporal_number("2024-03-05 01:02:03.25"),
            Value::Real(20240305010203.25)
        );
        assert_eq!(
            temporal_number("2024-03-05 01:02:03.123456"),
            Value::Text("20240305010203.123456".into())
        );
        assert_eq!(temporal_number("-01:02:03"), Value::Integer(-10203));
        assert_eq!(temporal_number("838:59:59"), Value::Integer(8385959));
        assert_eq!(temporal_number("12abc"), Value::Real(12.0));
        assert_eq!(temporal_number("1.5"), Value::Real(1.5));
    }

    /// Each as MariaDB 10.11 answers `ROUND(t, n)`/`TRUNCATE(t, n)`.
    #[test]
    fn temporals_rounded_keep_their_type() {
        let time = |s: &str| time_of(ValueRef::Text(s.as_bytes())).unwrap();
        for (t, digits, round, shown) in [
            (
                at("1970-01-01 00:00:01.25"),
                1,
                true,
                "1970-01-01 00:00:01.3",
            ),
            (at("1970-01-01 00:00:01.25"), 0, true, "1970-01-01 00:00:01"),
            (
                at("1970-01-01 00:00:01.75"),
                1,
                false,
                "1970-01-01 00:00:01.7",
            ),
            (at("1970-01-01 00:00:59.5"), 0, true, "1970-01-01 00:01:00"),
            (
                at("2024-12-31 23:59:59.999"),
                2,
                true,
                "2025-01-01 00:00:00.00",
            ),
            (
                at("2024-03-05 12:00:00.123456"),
                -1,
                false,
                "2024-03-05 12:00:00",
            ),
            (at("9999-12-31 23:59:59.9"), 0, true, "9999-12-31 23:59:59"),
            (at("0000-00-00 00:00:00"), 2, true, "0000-00-00 00:00:00.00"),
            (time("-10:00:00.5"), 0, true, "-10:00:01"),
            (time("838:59:59.5"), 0, true, "838:59:59"),
            (time("10:00:00"), 3, false, "10:00:00.000"),
        ] {
            let got = rounded_temporal(t, digits, round).map(|t| t.shown());
            assert_eq!(got.as_deref(), Some(shown), "{t:?} {digits} {round}");
        }
    }

    #[test]
    fn a_time_moved_stays_a_time_within_its_range() {
        let moved = |t: &str, n: ValueRef<'_>, unit: &str| {
            let t = time_of(ValueRef::Text(t.as_bytes())).unwrap();
            time_moved(&t, &interval(n, unit).unwrap().unwrap())
        };
        assert_eq!(
            moved("10:00:00", ValueRef::Integer(30), "MINUTE").as_deref(),
            Some("10:30:00")
        );
        assert_eq!(
            moved("10:00:00", ValueRef::Integer(1), "DAY").as_deref(),
            Some("34:00:00")
        );
        assert_eq!(
            moved("10:00:00", ValueRef::Integer(-11), "HOUR").as_deref(),
            Some("-01:00:00")
        );
        assert_eq!(
            moved("10:00:00", ValueRef::Real(1.5), "SECOND").as_deref(),
            Some("10:00:01.5")
        );
        assert_eq!(moved("838:00:00", ValueRef::Integer(2), "HOUR"), None);
        assert_eq!(moved("10:00:00", ValueRef::Integer(1), "MONTH"), None);
    }

    #[test]
    fn intervals_as_mysql_adds_them() {
        assert_eq!(plus("2024-01-31", 1, "MONTH").unwrap(), "2024-02-29");
        assert_eq!(plus("2024-03-31", -1, "month").unwrap(), "2024-02-29");
        assert_eq!(plus("2024-02-29", 1, "YEAR").unwrap(), "2025-02-28");
        assert_eq!(plus("2024-03-05", 1, "DAY").unwrap(), "2024-03-06");
        assert_eq!(
            plus("2024-03-05", 90, "MINUTE").unwrap(),
            "2024-03-05 01:30:00"
        );
        assert_eq!(plus("9999-12-31", 1, "DAY"), None);
        assert_eq!(plus("2024-00-05", 1, "DAY"), None);
        assert!(interval(ValueRef::Integer(1), "DAY_HOURS").is_err());
        let i = interval(ValueRef::Text(b"1:30"), "HOUR_MINUTE")
            .unwrap()
            .unwrap();
        assert_eq!(
            shown(add(at("2024-03-05"), &i)).unwrap(),
            "2024-03-05 01:30:00"
        );
    }

    #[test]
    fn values_read_as_mysql_reads_them() {
        assert_eq!(at("20240305").shown(), "2024-03-05");
        assert_eq!(at("240305").shown(), "2024-03-05");
        assert_eq!(at("24-3-5 1:2:3").shown(), "2024-03-05 01:02:03");
        assert_eq!(
            at("2024-03-05T10:20:30.25").shown(),
            "2024-03-05 10:20:30.25"
        );
        assert_eq!(at("2024-00-05").shown(), "2024-00-05");
        assert!(datetime_of(ValueRef::Text(b"2024-02-30")).is_none());
        // A comparison reads a day up to 31 in any month; nothing past it.
        let loose = |v: ValueRef| datetime_of_loose(v).map(|t| t.shown());
        assert_eq!(loose(ValueRef::Text(b"2024-02-30")).unwrap(), "2024-02-30");
        assert_eq!(loose(ValueRef::Real(231.75)).unwrap(), "2000-02-31");
        assert!(datetime_of(ValueRef::Real(231.75)).is_none());
        assert!(loose(ValueRef::Text(b"2024-02-32")).is_none());
        assert!(loose(ValueRef::Integer(20_241_301)).is_none());
        assert_eq!(
            datetime_of(ValueRef::Integer(20_240_305_102_030))
                .unwrap()
                .shown(),
            "2024-03-05 10:20:30"
        );
        assert_eq!(
            datetime_of(ValueRef::Integer(101)).unwrap().shown(),
            "2000-01-01"
        );
        assert!(datetime_of(ValueRef::Integer(99)).is_none());
        let time = |v: ValueRef| time_of(v).map(|t| t.shown());
        assert_eq!(time(ValueRef::Integer(3725)).unwrap(), "00:37:25");
        assert_eq!(time(ValueRef::Integer(-3725)).unwrap(), "-00:37:25");
        assert_eq!(time(ValueRef::Text(b"839:00:00")).unwrap(), "838:59:59");
        assert_eq!(time(ValueRef::Text(b"1 02:00:00")).unwrap(), "26:00:00");
        assert_eq!(time(ValueRef::Real(3725.5)).unwrap(), "00:37:25.5");
        // A double past a BIGINT reads as the largest one: a time past 838:59:59.
        assert_eq!(time(ValueRef::Real(1.8e19)).unwrap(), "838:59:59");
        assert_eq!(time(ValueRef::Real(-1e300)).unwrap(), "-838:59:59");
        assert!(datetime_of(ValueRef::Real(1.8e19)).is_none());
        // Past 7 digits a datetime's time (MariaDB's `number_to_time`), else clipped at
        // 838:59:59 once its minutes and seconds read.
        assert_eq!(time(ValueRef::Integer(20_240_305)).unwrap(), "00:00:00");
        assert_eq!(
            time(ValueRef::Integer(20_240_305_102_030)).unwrap(),
            "10:20:30"
        );
        assert_eq!(time(ValueRef::Integer(2_147_483_647)), None);
        assert_eq!(time(ValueRef::Integer(8_395_959)).unwrap(), "838:59:59");
        assert_eq!(time(ValueRef::Integer(8_395_999)), None);
        assert_eq!(time(ValueRef::Integer(-20_240_305)).unwrap(), "-838:59:59");
        assert_eq!(time(ValueRef::Integer(i64::MIN)).unwrap(), "-838:59:59");
        assert_eq!(time(ValueRef::Integer(8_385_960)), None);
        assert_eq!(
            time(ValueRef::Text(b"2024-03-05 10:20:30.5")).unwrap(),
            "10:20:30.5"
        );
    }

    #[test]
    fn weeks_by_mode() {
        // 2024-01-01 is a Monday; 2023-01-01 a Sunday.
        let week = |s: &str, mode: i64| calc_week(&at(s), week_mode(mode)).0;
        assert_eq!(
            (0..8).map(|m| week("2024-01-01", m)).collect::<Vec<_>>(),
            [0, 1, 53, 1, 1, 1, 1, 1]
        );
        assert_eq!(
            (0..8).map(|m| week("2023-01-01", m)).collect::<Vec<_>>(),
            [1, 0, 1, 52, 1, 0, 1, 52]
        );
        let t = at("2024-03-05 14:07:09.123");
        assert_eq!(
            format(&t, "%U %u %V %v %X %x|%r|%f|%Q|%", false).unwrap(),
            "09 10 09 10 2024 2024|02:07:09 PM|123000|Q|%"
        );
    }

    #[test]
    fn str_to_date_by_format() {
        let s = |v: &str, f: &str| shown(str_to_date(v, f));
        assert_eq!(s("March 5 2024", "%M %e %Y").unwrap(), "2024-03-05");
        assert_eq!(s("10:20 PM", "%h:%i %p").unwrap(), "22:20:00");
        assert_eq!(s("10:20 PM", "%H:%i %p"), None);
        assert_eq!(s("2024 065", "%Y %j").unwrap(), "2024-03-05");
        assert_eq!(s("2024", "%Y-%m-%d").unwrap(), "2024-00-00");
        assert_eq!(s("5th Mar 24", "%D %b %y").unwrap(), "2024-03-05");
        assert_eq!(
            s("03/05/2024 01:02:03 pm", "%m/%d/%Y %r").unwrap(),
            "2024-03-05 13:02:03"
        );
        assert_eq!(
            s("2024-03-05 10:20:30.5", "%Y-%m-%d %H:%i:%s.%f").unwrap(),
            "2024-03-05 10:20:30.500000"
        );
        assert_eq!(s("abc", "%Y"), None);
        // A week and a weekday name read back to their day (MariaDB's answers); `%V` wants
        // `%X`, `%v` `%x`, `%U`/`%u` `%Y`; no weekday: the week is read and left.
        assert_eq!(s("202648 Sunday", "%X%V %W").as_deref(), Some("2026-11-29"));
        assert_eq!(s("202053 Sun", "%X%V %a").as_deref(), Some("2021-01-03"));
        assert_eq!(s("2026 01 Mon", "%x %v %a").as_deref(), Some("2025-12-29"));
        assert_eq!(s("2027 01 1", "%x %v %w").as_deref(), Some("2027-01-04"));
        assert_eq!(s("2026 00 0", "%Y %U %w").as_deref(), Some("2025-12-28"));
        assert_eq!(s("2026 00 Sat", "%Y %u %a").as_deref(), Some("2025-12-27"));
        assert_eq!(s("2026 5 Tue", "%Y %U %a").as_deref(), Some("2026-02-03"));
        assert_eq!(
            s("2026 100 1 Tue", "%Y %j %U %a").as_deref(),
            Some("2026-01-06")
        );
        assert_eq!(
            s("9999 52 Sunday", "%X %V %W").as_deref(),
            Some("9999-12-26")
        );
        assert_eq!(s("2026 48", "%X %V").as_deref(), Some("0000-00-00"));
        for (v, f) in [
            ("2026 48 Sunday", "%Y %V %W"),
            ("2026 48 Sunday", "%X %v %W"),
            ("2026 54 Sunday", "%X %V %W"),
            ("2026 00 Sunday", "%X %V %W"),
            ("0000 01 Sunday", "%X %V %W"),
            ("9999 53 Sunday", "%X %V %W"),
            ("2026 7", "%Y %w"),
        ] {
            assert_eq!(s(v, f), None, "{v} {f}");
        }
    }
}
