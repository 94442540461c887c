//! MySQL's date and time functions and its interval arithmetic, over the text forms MySQL shows
//! (`YYYY-MM-DD HH:MM:SS`, `YYYY-MM-DD`, `HH:MM:SS`), in UTC (the session's `@@time_zone`).
//!
//! `statement` rewrites `x + INTERVAL n UNIT`, `DATE_ADD`, `DATE_SUB`, `ADDDATE`, `SUBDATE` and
//! `TIMESTAMPADD` to `mysql_date_add(x, n, 'UNIT')`, and the unit argument of `TIMESTAMPDIFF`
//! and `EXTRACT` to a string. As MySQL: a date plus days, weeks, months, quarters or years is a
//! date, anything else a datetime; a month added to the 31st ends on the month's last day; what
//! does not read as a date is NULL.

use rusqlite::functions::{Context, FunctionFlags};
use rusqlite::types::ValueRef;
use rusqlite::{Connection, Error, Result};

use super::functions::{civil, date_format, datetime, days, now_secs, number, text};

/// A point in time read from an argument: Unix seconds, and whether it was a date only.
#[derive(Clone, Copy)]
struct Moment {
    secs: i64,
    date_only: bool,
}

/// `YYYY-MM-DD[ HH:MM[:SS[.ffffff]]]`, or a number of the form `YYYYMMDD[HHMMSS]`.
fn moment(v: ValueRef<'_>) -> Option<Moment> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(_) | ValueRef::Real(_) => {
            let n = number(v)? as i64;
            let (date, time) = if n > 99_999_999 {
                (n / 1_000_000, n % 1_000_000)
            } else {
                (n, -1)
            };
            let (y, m, d) = (
                date / 10_000,
                (date / 100 % 100) as u32,
                (date % 100) as u32,
            );
            if !(1..=12).contains(&m) || d < 1 || d > month_days(y, m) {
                return None;
            }
            let secs = days(y, m, d) * 86_400;
            Some(if time < 0 {
                Moment {
                    secs,
                    date_only: true,
                }
            } else {
                Moment {
                    secs: secs + time / 10_000 * 3600 + time / 100 % 100 * 60 + time % 100,
                    date_only: false,
                }
            })
        }
        ValueRef::Text(t) | ValueRef::Blob(t) => {
            let s = std::str::from_utf8(t).ok()?.trim();
            let (date, time) = match s.split_once([' ', 'T']) {
                Some((d, t)) => (d, Some(t)),
                None => (s, None),
            };
            let mut parts = date.splitn(3, '-');
            let y: i64 = parts.next()?.parse().ok()?;
            let m: u32 = parts.next()?.parse().ok()?;
            let d: u32 = parts.next()?.parse().ok()?;
            if !(1..=12).contains(&m) || d < 1 || d > month_days(y, m) {
                return None;
            }
            let mut secs = days(y, m, d) * 86_400;
            if let Some(time) = time {
                secs += time_of_day(time)?;
            }
            Some(Moment {
                secs,
                date_only: time.is_none(),
            })
        }
    }
}

/// `HH:MM[:SS[.ffffff]]` as seconds.
fn time_of_day(s: &str) -> Option<i64> {
    let mut t = s.split(':');
    let hh: i64 = t.next()?.trim().parse().ok()?;
    let mi: i64 = t.next().unwrap_or("0").parse().ok()?;
    let ss: i64 = t.next().unwrap_or("0").split('.').next()?.parse().ok()?;
    if !(0..60).contains(&mi) || !(0..60).contains(&ss) {
        return None;
    }
    Some(hh * 3600 + mi * 60 + ss)
}

fn leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn month_days(y: i64, m: u32) -> u32 {
    match m {
        2 if leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn date_text(secs: i64) -> String {
    datetime(secs)[..10].to_string()
}

fn time_text(secs: i64) -> String {
    let sign = if secs < 0 { "-" } else { "" };
    let s = secs.abs();
    format!("{sign}{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// An interval unit MySQL knows and pinbad does not (`DAY_HOUR`, …) is an error, not a guess.
fn unsupported_unit(unit: &str) -> Error {
    Error::UserFunctionError(format!("INTERVAL unit {unit} is not supported by pinbad").into())
}

/// `m` plus `n` `unit`s; `None` past the calendar's range.
fn add(m: Moment, n: f64, unit: &str) -> Result<Option<Moment>> {
    let secs = |k: f64| -> Option<Moment> {
        Some(Moment {
            secs: m.secs.checked_add((n * k).round() as i64)?,
            date_only: false,
        })
    };
    let months = |k: i64| -> Option<Moment> {
        let (day, rem) = (m.secs.div_euclid(86_400), m.secs.rem_euclid(86_400));
        let (y, mo, d) = civil(day);
        let total = (y * 12 + i64::from(mo) - 1).checked_add(n.round() as i64 * k)?;
        let (y, mo) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u32);
        if !(0..=9999).contains(&y) {
            return None;
        }
        Some(Moment {
            secs: days(y, mo, d.min(month_days(y, mo))) * 86_400 + rem,
            date_only: m.date_only,
        })
    };
    let whole_days = |k: i64| -> Option<Moment> {
        Some(Moment {
            secs: m
                .secs
                .checked_add((n.round() as i64).checked_mul(k * 86_400)?)?,
            date_only: m.date_only,
        })
    };
    Ok(match unit.to_ascii_uppercase().as_str() {
        "SECOND" => secs(1.0),
        "MINUTE" => secs(60.0),
        "HOUR" => secs(3600.0),
        "DAY" => whole_days(1),
        "WEEK" => whole_days(7),
        "MONTH" => months(1),
        "QUARTER" => months(3),
        "YEAR" => months(12),
        other => return Err(unsupported_unit(other)),
    })
}

fn shown(m: Moment) -> String {
    if m.date_only {
        date_text(m.secs)
    } else {
        datetime(m.secs)
    }
}

/// Whole `unit`s from `a` to `b` (MySQL's `TIMESTAMPDIFF`).
fn diff(unit: &str, a: Moment, b: Moment) -> Result<i64> {
    let d = b.secs - a.secs;
    let months = || {
        let (ya, ma, _) = civil(a.secs.div_euclid(86_400));
        let (yb, mb, _) = civil(b.secs.div_euclid(86_400));
        let mut n = (yb * 12 + i64::from(mb)) - (ya * 12 + i64::from(ma));
        // The part of a month: day of month and time of day, compared.
        let rest = |s: i64| {
            let (_, _, day) = civil(s.div_euclid(86_400));
            i64::from(day) * 86_400 + s.rem_euclid(86_400)
        };
        if n > 0 && rest(b.secs) < rest(a.secs) {
            n -= 1;
        } else if n < 0 && rest(b.secs) > rest(a.secs) {
            n += 1;
        }
        n
    };
    Ok(match unit.to_ascii_uppercase().as_str() {
        "SECOND" => d,
        "MINUTE" => d / 60,
        "HOUR" => d / 3600,
        "DAY" => d / 86_400,
        "WEEK" => d / (7 * 86_400),
        "MONTH" => months(),
        "QUARTER" => months() / 3,
        "YEAR" => months() / 12,
        other => return Err(unsupported_unit(other)),
    })
}

/// The parts `EXTRACT` and the one-part functions (`YEAR(x)`, …) give.
fn part(unit: &str, m: Moment) -> Result<i64> {
    let day = m.secs.div_euclid(86_400);
    let rem = m.secs.rem_euclid(86_400);
    let (y, mo, d) = civil(day);
    Ok(match unit {
        "YEAR" => y,
        "QUARTER" => i64::from((mo - 1) / 3 + 1),
        "MONTH" => i64::from(mo),
        "DAY" => i64::from(d),
        "HOUR" => rem / 3600,
        "MINUTE" => rem / 60 % 60,
        "SECOND" => rem % 60,
        "MICROSECOND" => 0,
        // 1 = Sunday (1970-01-01 was a Thursday).
        "DAYOFWEEK" => (day + 4).rem_euclid(7) + 1,
        // 0 = Monday.
        "WEEKDAY" => (day + 3).rem_euclid(7),
        "DAYOFYEAR" => day - days(y, 1, 1) + 1,
        // Mode 0: weeks start on Sunday; days before the year's first Sunday are week 0.
        "WEEK" => {
            let jan1 = days(y, 1, 1);
            let before = (7 - (jan1 + 4).rem_euclid(7)) % 7;
            let doy = day - jan1 + 1;
            if doy <= before {
                0
            } else {
                (doy - before - 1) / 7 + 1
            }
        }
        "YEAR_MONTH" => y * 100 + i64::from(mo),
        other => return Err(unsupported_unit(other)),
    })
}

/// `%Y %y %m %c %d %e %H %k %h %I %l %i %s %S %p %T %f %%` as `STR_TO_DATE` reads them.
fn str_to_date(s: &str, fmt: &str) -> Option<Moment> {
    let (mut y, mut mo, mut d, mut h, mut mi, mut sec) = (0i64, 0u32, 0u32, 0i64, 0i64, 0i64);
    let mut pm = None;
    let mut has_time = false;
    let mut input = s.trim_start();
    let mut chars = fmt.chars();
    let digits = |input: &mut &str, max: usize| -> Option<i64> {
        let n = input
            .bytes()
            .take(max)
            .take_while(u8::is_ascii_digit)
            .count();
        if n == 0 {
            return None;
        }
        let v = input[..n].parse().ok();
        *input = &input[n..];
        v
    };
    while let Some(c) = chars.next() {
        if c != '%' {
            input = input.strip_prefix(c)?;
            continue;
        }
        match chars.next()? {
            'Y' => y = digits(&mut input, 4)?,
            'y' => {
                let v = digits(&mut input, 2)?;
                y = if v < 70 { 2000 + v } else { 1900 + v };
            }
            'm' | 'c' => mo = digits(&mut input, 2)? as u32,
            'd' | 'e' => d = digits(&mut input, 2)? as u32,
            'H' | 'k' | 'h' | 'I' | 'l' => {
                h = digits(&mut input, 2)?;
                has_time = true;
            }
            'i' => {
                mi = digits(&mut input, 2)?;
                has_time = true;
            }
            's' | 'S' => {
                sec = digits(&mut input, 2)?;
                has_time = true;
            }
            'f' => {
                digits(&mut input, 6)?;
            }
            'p' => {
                let up = input.get(..2)?.to_ascii_uppercase();
                pm = Some(up == "PM");
                input = &input[2..];
            }
            'T' => {
                h = digits(&mut input, 2)?;
                input = input.strip_prefix(':')?;
                mi = digits(&mut input, 2)?;
                input = input.strip_prefix(':')?;
                sec = digits(&mut input, 2)?;
                has_time = true;
            }
            '%' => input = input.strip_prefix('%')?,
            _ => return None,
        }
    }
    if let Some(pm) = pm {
        h = h % 12 + if pm { 12 } else { 0 };
    }
    if !(1..=12).contains(&mo) || d < 1 || d > month_days(y, mo) || h > 23 || mi > 59 || sec > 59 {
        return None;
    }
    Some(Moment {
        secs: days(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec,
        date_only: !has_time,
    })
}

fn arg(ctx: &Context<'_>, i: usize) -> Option<Moment> {
    moment(ctx.get_raw(i))
}

/// Registers the date and time functions on `conn`.
pub fn register(conn: &Connection) -> Result<()> {
    let pure = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC;
    let volatile = FunctionFlags::SQLITE_UTF8;
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
            arg(ctx, 0).map(|m| part(unit, m)).transpose()
        })?;
    }
    conn.create_scalar_function("mysql_extract", 2, pure, |ctx| {
        let unit = text(ctx.get_raw(0)).to_ascii_uppercase();
        arg(ctx, 1).map(|m| part(&unit, m)).transpose()
    })?;
    conn.create_scalar_function("dayname", 1, pure, |ctx| {
        Ok(arg(ctx, 0).map(|m| date_format(m.secs, "%W")))
    })?;
    conn.create_scalar_function("monthname", 1, pure, |ctx| {
        Ok(arg(ctx, 0).map(|m| date_format(m.secs, "%M")))
    })?;
    conn.create_scalar_function("date", 1, pure, |ctx| {
        Ok(arg(ctx, 0).map(|m| date_text(m.secs)))
    })?;
    conn.create_scalar_function("mysql_datetime", 1, pure, |ctx| {
        Ok(arg(ctx, 0).map(|m| datetime(m.secs)))
    })?;
    conn.create_scalar_function("time", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            v => match moment(v) {
                Some(m) => Some(time_text(m.secs.rem_euclid(86_400))),
                None => time_of_day(&text(v)).map(time_text),
            },
        })
    })?;
    conn.create_scalar_function("last_day", 1, pure, |ctx| {
        Ok(arg(ctx, 0).map(|m| {
            let (y, mo, _) = civil(m.secs.div_euclid(86_400));
            date_text(days(y, mo, month_days(y, mo)) * 86_400)
        }))
    })?;
    conn.create_scalar_function("to_days", 1, pure, |ctx| {
        Ok(arg(ctx, 0).map(|m| m.secs.div_euclid(86_400) + 719_528))
    })?;
    conn.create_scalar_function("from_days", 1, pure, |ctx| {
        Ok(number(ctx.get_raw(0)).map(|n| date_text((n as i64 - 719_528) * 86_400)))
    })?;
    conn.create_scalar_function("makedate", 2, pure, |ctx| {
        let (y, n) = (number(ctx.get_raw(0)), number(ctx.get_raw(1)));
        Ok(match (y, n) {
            (Some(y), Some(n)) if n >= 1.0 => {
                Some(date_text((days(y as i64, 1, 1) + n as i64 - 1) * 86_400))
            }
            _ => None,
        })
    })?;
    conn.create_scalar_function("datediff", 2, pure, |ctx| {
        Ok(match (arg(ctx, 0), arg(ctx, 1)) {
            (Some(a), Some(b)) => Some(a.secs.div_euclid(86_400) - b.secs.div_euclid(86_400)),
            _ => None,
        })
    })?;
    conn.create_scalar_function("timestampdiff", 3, pure, |ctx| {
        let unit = text(ctx.get_raw(0));
        match (arg(ctx, 1), arg(ctx, 2)) {
            (Some(a), Some(b)) => diff(&unit, a, b).map(Some),
            _ => Ok(None),
        }
    })?;
    // `x ± INTERVAL n UNIT`, `DATE_ADD(x, INTERVAL n UNIT)` and their kin (`statement` makes
    // them `f(x, n, 'UNIT')`); `ADDDATE(x, n)` adds days.
    for (name, sign) in [
        ("mysql_date_add", 1.0),
        ("date_add", 1.0),
        ("adddate", 1.0),
        ("date_sub", -1.0),
        ("subdate", -1.0),
    ] {
        conn.create_scalar_function(name, 3, pure, move |ctx| {
            let unit = text(ctx.get_raw(2));
            match (arg(ctx, 0), number(ctx.get_raw(1))) {
                (Some(m), Some(n)) => Ok(add(m, sign * n, &unit)?.map(shown)),
                _ => Ok(None),
            }
        })?;
    }
    for (name, sign) in [("adddate", 1.0), ("subdate", -1.0)] {
        conn.create_scalar_function(name, 2, pure, move |ctx| {
            match (arg(ctx, 0), number(ctx.get_raw(1))) {
                (Some(m), Some(n)) => Ok(add(m, sign * n, "DAY")?.map(shown)),
                _ => Ok(None),
            }
        })?;
    }
    conn.create_scalar_function("timestampadd", 3, pure, |ctx| {
        let unit = text(ctx.get_raw(0));
        match (arg(ctx, 2), number(ctx.get_raw(1))) {
            (Some(m), Some(n)) => Ok(add(m, n, &unit)?.map(shown)),
            _ => Ok(None),
        }
    })?;
    conn.create_scalar_function("str_to_date", 2, pure, |ctx| {
        if matches!(ctx.get_raw(0), ValueRef::Null) {
            return Ok(None);
        }
        Ok(str_to_date(&text(ctx.get_raw(0)), &text(ctx.get_raw(1))).map(shown))
    })?;
    conn.create_scalar_function("sec_to_time", 1, pure, |ctx| {
        Ok(number(ctx.get_raw(0)).map(|n| time_text(n as i64)))
    })?;
    conn.create_scalar_function("time_to_sec", 1, pure, |ctx| {
        Ok(match ctx.get_raw(0) {
            ValueRef::Null => None,
            v => match moment(v) {
                Some(m) if !m.date_only => Some(m.secs.rem_euclid(86_400)),
                _ => time_of_day(&text(v)),
            },
        })
    })?;
    conn.create_scalar_function("utc_timestamp", 0, volatile, |_| Ok(datetime(now_secs())))?;
    conn.create_scalar_function("utc_date", 0, volatile, |_| Ok(date_text(now_secs())))?;
    for name in ["curtime", "utc_time"] {
        conn.create_scalar_function(name, 0, volatile, |_| {
            Ok(time_text(now_secs().rem_euclid(86_400)))
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Moment {
        moment(ValueRef::Text(s.as_bytes())).unwrap()
    }

    #[test]
    fn intervals_as_mysql_adds_them() {
        assert_eq!(
            shown(add(at("2024-01-31"), 1.0, "MONTH").unwrap().unwrap()),
            "2024-02-29"
        );
        assert_eq!(
            shown(add(at("2024-03-31"), -1.0, "month").unwrap().unwrap()),
            "2024-02-29"
        );
        assert_eq!(
            shown(add(at("2024-02-29"), 1.0, "YEAR").unwrap().unwrap()),
            "2025-02-28"
        );
        assert_eq!(
            shown(add(at("2024-03-05"), 1.0, "DAY").unwrap().unwrap()),
            "2024-03-06"
        );
        assert_eq!(
            shown(add(at("2024-03-05"), 90.0, "MINUTE").unwrap().unwrap()),
            "2024-03-05 01:30:00"
        );
        assert!(add(at("2024-03-05"), 1.0, "DAY_HOUR").is_err());
    }

    #[test]
    fn differences_and_parts() {
        let (a, b) = (at("2024-01-15"), at("2024-03-14"));
        assert_eq!(diff("MONTH", a, b).unwrap(), 1);
        assert_eq!(diff("DAY", a, b).unwrap(), 59);
        assert_eq!(part("DAYOFWEEK", at("2024-03-05")).unwrap(), 3);
        assert_eq!(part("WEEKDAY", at("2024-03-05")).unwrap(), 1);
        assert_eq!(part("WEEK", at("2024-03-05")).unwrap(), 9);
        assert_eq!(part("DAYOFYEAR", at("2024-03-05")).unwrap(), 65);
        let m = str_to_date("05/03/2024", "%d/%m/%Y").unwrap();
        assert_eq!(shown(m), "2024-03-05");
        assert!(str_to_date("2024-13-01", "%Y-%m-%d").is_none());
    }
}
